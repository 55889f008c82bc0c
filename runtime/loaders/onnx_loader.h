// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Loading `.onnx` files (Debian's libonnx protobuf classes) into vkserve's
// format-independent Graph. Models are untrusted bytes: every size, index and
// reference is checked, and a problem is a Status naming the file and the
// item (node, tensor, attribute, value), never a crash or an exception:
//   INVALID_ARGUMENT  malformed model (bad sizes, dangling inputs, cycles,
//                     duplicate definitions, missing opset imports, ...);
//   NOT_FOUND         a missing model or external data file;
//   UNIMPLEMENTED     valid ONNX that vkserve does not support (string
//                     tensors, element types newer than bfloat16, sparse
//                     tensors, sequence/map values, ...).
// Supports external data files next to the model. Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_LOADERS_ONNX_LOADER_H_
#define VKSERVE_RUNTIME_LOADERS_ONNX_LOADER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"

namespace vkserve {

struct OnnxLoadOptions {
  // Read tensors whose data_location is EXTERNAL from files under the model's
  // directory. When false (or when loading bytes with an empty base_dir) such
  // tensors are an INVALID_ARGUMENT error.
  bool allow_external_data = true;
  // Convert GRAPH/GRAPHS attributes (If, Loop, Scan bodies) into
  // Attribute::graphs. When false they are an UNIMPLEMENTED error.
  bool load_subgraphs = true;
  // Deepest nesting of subgraphs accepted.
  int max_subgraph_depth = 16;
  // Upper bound on one tensor's bytes (initializers, attribute tensors).
  uint64_t max_tensor_bytes = uint64_t{1} << 40;
};

// Loads a model file. External tensor data is read relative to the model's
// directory; absolute paths and paths leaving that directory are refused.
absl::StatusOr<Graph> LoadOnnxModel(const std::string& path, const OnnxLoadOptions& options = {});

// Loads a serialized ModelProto. `base_dir` resolves external data (empty:
// external data is refused). `name` is used in error messages.
absl::StatusOr<Graph> LoadOnnxModelFromBytes(std::string_view bytes, const std::string& base_dir,
                                             const std::string& name = "model",
                                             const OnnxLoadOptions& options = {});

// Reads a file holding one serialized TensorProto (as in the ONNX conformance
// data: test_data_set_0/input_0.pb). External data, if any, is resolved
// relative to the file's directory.
absl::StatusOr<HostTensor> ReadTensorProtoFile(const std::string& path);

// Parses one serialized TensorProto held in memory (no external data).
// `name` is used in error messages.
absl::StatusOr<HostTensor> ParseTensorProto(std::string_view bytes,
                                            const std::string& name = "tensor");

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_LOADERS_ONNX_LOADER_H_
