// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Graph: vkserve's in-memory model, independent of the file format. The
// `.onnx` loader (onnx_loader.h) and the `.ort` loader both produce it, so
// planning and execution never see a file format. A Graph is immutable once
// loaded and may be read from many threads; nothing here touches the GPU.
#ifndef VKSERVE_RUNTIME_IR_GRAPH_H_
#define VKSERVE_RUNTIME_IR_GRAPH_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/ir/data_type.h"
#include "runtime/ir/tensor_bytes.h"

namespace vkserve {

// One dimension of a declared shape: a fixed size, or a symbol (dim_param)
// resolved per run, or unknown. `denotation` is ONNX's dimension denotation
// (DATA_BATCH, ...), used by free-dimension overrides.
struct Dim {
  int64_t value = -1;  // >= 0 when fixed
  std::string param;   // symbolic name, when not fixed (may be empty)
  std::string denotation;
  bool is_fixed() const { return value >= 0; }
};

// Declared type of a graph input, output or intermediate value.
struct TensorType {
  DataType dtype = DataType::kUndefined;
  bool has_shape = false;  // false: rank unknown
  std::vector<Dim> shape;
};

struct ValueInfo {
  std::string name;
  TensorType type;
};

// A tensor with host-resident data: initializers, Constant values, attribute
// tensors and folded values. `data` holds the elements little-endian and
// densely packed (strings are not supported and rejected at load); it may
// be a view into the loaded file (TensorBytes), so read it with memcpy-safe
// access, not through pointers that assume more than 4-byte alignment.
struct HostTensor {
  DataType dtype = DataType::kUndefined;
  std::vector<int64_t> shape;
  TensorBytes data;

  int64_t num_elements() const;  // product of shape; 1 for a scalar
  size_t byte_size() const { return data.size(); }
  // Reads element i as int64/double whatever the integer/float dtype.
  // REQUIRES: i < num_elements() and a numeric dtype.
  int64_t GetInt(int64_t i) const;
  double GetDouble(int64_t i) const;
  // All elements converted to int64 (for shape-like tensors).
  std::vector<int64_t> ToInts() const;
  static HostTensor FromInts(const std::vector<int64_t>& values, std::vector<int64_t> shape);
  static HostTensor FromFloats(const std::vector<float>& values, std::vector<int64_t> shape);
};

struct Graph;

// A node attribute. Only the member matching `type` is meaningful.
struct Attribute {
  enum class Type {
    kUndefined,
    kFloat,
    kInt,
    kString,
    kTensor,
    kGraph,
    kFloats,
    kInts,
    kStrings,
    kTensors,
    kGraphs
  };
  Type type = Type::kUndefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  HostTensor t;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<HostTensor> tensors;
  std::vector<std::shared_ptr<const Graph>> graphs;  // kGraph uses graphs[0]
};

struct Node {
  std::string name;  // never empty: the loader names anonymous nodes "<op_type>_<index>"
  std::string op_type;
  std::string domain;  // "" for the default ONNX domain ("ai.onnx" is normalized to "")
  int64_t opset = 0;   // the model's opset import for `domain`
  // The op's own version as the file states it (ORT format's since_version);
  // 0 when the format does not say (ONNX).
  int64_t since_version = 0;
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;  // "" marks an omitted optional output
  std::map<std::string, Attribute> attributes;
  // Set on nodes a load-time rewrite (rewrite.h) produced: the name of the
  // stored node they replace. Empty for nodes as stored.
  std::string rewritten_from;
  // Set on nodes a load-time pattern fusion merged others into (attention,
  // GELU, epilogues): the names of the nodes it absorbed, whose own outputs
  // are gone, so `vkserve inspect` can say where they run.
  std::vector<std::string> absorbed;

  // Attribute accessors with defaults; the typed getters return the default
  // when the attribute is absent. Type mismatches are found by ValidateNode.
  const Attribute* FindAttribute(const std::string& attr_name) const;
  int64_t GetInt(const std::string& attr_name, int64_t default_value) const;
  float GetFloat(const std::string& attr_name, float default_value) const;
  std::string GetString(const std::string& attr_name, const std::string& default_value) const;
  std::vector<int64_t> GetInts(const std::string& attr_name,
                               std::vector<int64_t> default_value = {}) const;
  std::vector<float> GetFloats(const std::string& attr_name,
                               std::vector<float> default_value = {}) const;

  // "Conv (node 'conv1', domain 'ai.onnx', opset 13)" — used in every error about a node.
  std::string Describe() const;
};

// A loaded model's main graph. Nodes are in topological order (the loader
// checks and sorts).
struct Graph {
  std::vector<ValueInfo> inputs;  // graph inputs that are not initializers
  std::vector<ValueInfo> outputs;
  std::vector<ValueInfo> value_info;  // optional declared types of intermediates
  std::map<std::string, HostTensor> initializers;
  std::vector<Node> nodes;
  std::map<std::string, int64_t> opset_imports;  // domain ("" = ai.onnx) -> version
  int64_t ir_version = 0;
  std::string producer_name;
  std::string producer_version;
  // The file format the graph was loaded from: "onnx" or "ort" (ONNX
  // Runtime's format; `ort_format_version` is its version string then).
  std::string format = "onnx";
  std::string ort_format_version;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_IR_GRAPH_H_
