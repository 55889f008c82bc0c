// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GraphBuilder: what every model loader shares once it has decoded its file
// format — assembling a Graph from initializers, declared inputs and
// outputs, value infos and nodes, and checking it: single assignment of
// every value, no dangling reads, domains covered by the opset imports,
// graph outputs produced, subgraphs reading outer values only through their
// scope; then a stable topological sort that names a cycle when there is
// one. The `.onnx` (onnx_loader.h) and `.ort` (ort_loader.h) loaders both
// build through it, so both give the same Graph and the same messages.
//
// Also the element-type and tensor-size checks both loaders apply to the
// untrusted numbers of a file.
//
// A builder is used by one thread, for one graph; cheap to create.
#ifndef VKSERVE_RUNTIME_IR_GRAPH_BUILDER_H_
#define VKSERVE_RUNTIME_IR_GRAPH_BUILDER_H_

#include <cstdint>
#include <exception>
#include <map>
#include <new>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/ir/graph.h"

namespace vkserve {

using NameSet = std::unordered_set<std::string>;

// The names visible from enclosing graphs: a chain of per-graph sets, so a
// subgraph costs nothing in the size of its enclosing graphs.
struct GraphScope {
  const NameSet* defined = nullptr;   // values an enclosing graph has before its nodes run
  const NameSet* produced = nullptr;  // that graph's node outputs
  const GraphScope* parent = nullptr;
  bool Contains(const std::string& name) const;
};

// Error helpers carrying the model's name ("model.ort: ...").
absl::Status MalformedModel(absl::string_view model, absl::string_view what);    // INVALID_ARGUMENT
absl::Status UnsupportedModel(absl::string_view model, absl::string_view what);  // UNIMPLEMENTED

// Checks an element type number (ONNX's TensorProto numbering, which the ORT
// format shares) of a tensor or value called `what`: negative is malformed;
// string, float8 and newer types are unsupported; 0 (undefined) is allowed
// only when `allow_undefined`.
absl::StatusOr<DataType> CheckElementType(absl::string_view model, int64_t type,
                                          const std::string& what, bool allow_undefined);

// The byte size of a tensor with `dims`, refusing negative dimensions and
// sizes over `max_bytes` (checked before any multiplication can overflow).
absl::StatusOr<uint64_t> CheckedTensorBytes(absl::string_view model, DataType dtype,
                                            const std::vector<int64_t>& dims, uint64_t max_bytes,
                                            const std::string& what);

// Runs a loader's `fn` so that no exception escapes: an allocation failure
// (a huge but well-formed tensor) becomes RESOURCE_EXHAUSTED, anything else
// INTERNAL, both naming `model`. Loaders' entry points go through it.
template <typename T, typename Fn>
absl::StatusOr<T> LoadWithoutExceptions(const std::string& model, Fn&& fn) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(model + ": out of memory");
  } catch (const std::exception& e) {
    return absl::InternalError(model + ": " + e.what());
  }
}

class GraphBuilder {
 public:
  // `model` names the file in messages; `opsets` are the model's imports
  // (normalized domain -> version); `depth` is 0 for the main graph;
  // `subgraph_name` labels a subgraph's messages; `outer` is the scope of
  // the enclosing graphs (null for the main graph). `outer` must outlive
  // the builder.
  GraphBuilder(std::string model, std::map<std::string, int64_t> opsets, int depth,
               absl::string_view subgraph_name, const GraphScope* outer);

  // "subgraph 'body': " for subgraphs, "" for the main graph.
  const std::string& graph_what() const { return graph_what_; }
  int depth() const { return depth_; }
  absl::Status Malformed(absl::string_view what) const;  // prefixed with model and graph
  absl::Status Unsupported(absl::string_view what) const;

  absl::Status AddInitializer(const std::string& name, HostTensor tensor);
  // A graph input; one that names an initializer is skipped (IR < 4 lists
  // initializers as inputs).
  absl::Status AddInput(ValueInfo value);
  absl::Status AddOutput(ValueInfo value);
  void AddValueInfo(ValueInfo value);  // advisory; unnamed entries are skipped

  // Declares a node's outputs before any node is added, so that subgraphs
  // converted while adding nodes see every value of this graph. `node_label`
  // names the node in the message when a value is defined twice.
  absl::Status DeclareNodeOutputs(const std::string& node_label,
                                  const std::vector<std::string>& outputs);

  // The scope this graph's subgraphs see. Valid while the builder lives;
  // complete once every node's outputs are declared.
  const GraphScope& scope() const { return scope_; }

  // Adds a converted node: sets its opset from the imports and checks its
  // op type and attribute names. `captured` are outer names its subgraphs
  // read; `index` numbers it for messages.
  absl::Status AddNode(Node node, const NameSet& captured, size_t index);

  // Orders the nodes and checks the outputs. Names this graph reads from
  // enclosing graphs are added to `captured` (may be null for the main graph).
  absl::StatusOr<Graph> Finish(NameSet* captured);

 private:
  absl::StatusOr<std::vector<Node>> SortNodes();
  // Whether `name` is there before any node of this graph runs: an input or
  // initializer here, or an outer graph's value no node here shadows.
  bool Available(const std::string& name) const;
  // The error for nodes SortNodes could not place (`placed`): names a cycle
  // among them. `producer` maps each node output to its node.
  absl::Status CycleError(const std::vector<bool>& placed,
                          const std::unordered_map<std::string, size_t>& producer) const;

  std::string model_;
  std::map<std::string, int64_t> opsets_;
  int depth_;
  std::string graph_what_;
  const GraphScope* outer_;
  Graph graph_;
  NameSet defined_;   // available before any node runs
  NameSet produced_;  // node outputs
  GraphScope scope_;
  std::vector<std::vector<std::string>> deps_;  // per node: inputs and captured names
  NameSet captured_from_outer_;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_IR_GRAPH_BUILDER_H_
