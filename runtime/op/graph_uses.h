// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GraphUses: which node writes and which nodes read each value of a graph,
// the index the load-time pattern fusions (attention_fusion, gelu_fusion,
// reshape_sinking) match against. A snapshot of the graph it was built
// from: a pass that rewrites the graph builds a new one before matching
// again. Immutable after construction, so safe to share across threads.
#ifndef VKSERVE_RUNTIME_OP_GRAPH_USES_H_
#define VKSERVE_RUNTIME_OP_GRAPH_USES_H_

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"

namespace vkserve {

class Op;
struct TensorDesc;

class GraphUses {
 public:
  // `graph` is only read during construction.
  explicit GraphUses(const Graph& graph);

  // The index of the node writing `value`; nullopt for graph inputs and
  // initializers.
  std::optional<size_t> Producer(const std::string& value) const;
  // The nodes reading `value` (a node reading it twice appears twice).
  const std::vector<size_t>& Readers(const std::string& value) const;
  bool IsGraphOutput(const std::string& value) const { return outputs_.count(value) > 0; }

  // The node writing `value` when `reader` is its only reader, the value is
  // no graph output and it is that node's only output: a producer a fusion
  // ending at `reader` may absorb.
  std::optional<size_t> SoleProducer(const std::string& value, size_t reader) const;
  // The only reader of `value` when it is no graph output.
  std::optional<size_t> SoleReader(const std::string& value) const;

 private:
  std::vector<const Node*> nodes_;
  std::map<std::string, size_t> producer_;
  std::map<std::string, std::vector<size_t>> readers_;
  std::set<std::string> outputs_;
};

// `value`'s description in `shapes` (inferred descriptions by value name),
// or nullptr where there is none.
const TensorDesc* FindShape(const std::map<std::string, TensorDesc>& shapes,
                            const std::string& value);

// A value name `graph` does not use yet (no node writes or reads it, no
// initializer or graph output has it): `base`, else `base_1`, `base_2`, ...
std::string UnusedValueName(const Graph& graph, const GraphUses& uses, const std::string& base);

// The value of `name` when it is a one-element float32 initializer.
std::optional<float> FloatScalarInitializer(const Graph& graph, const std::string& name);

// The value of `name` when it is a one-element float32 known at load: an
// initializer, or a value planning folds on the host (the TorchScript
// exporter's Shape -> Cast -> Sqrt -> Div of a head size) to the same number
// at both free-dimension signatures: `shapes1` and `shapes3` are the graph's
// values with the free input dimensions at 1 and 3 (PassContext::ShapesAt).
std::optional<float> FloatScalarAtLoad(const Graph& graph,
                                       const std::map<std::string, TensorDesc>& shapes1,
                                       const std::map<std::string, TensorDesc>& shapes3,
                                       const std::string& name);

// Removes the nodes marked in `removed` (one flag per node), keeping the
// others in order: how every pattern fusion drops what it absorbed.
void EraseNodes(const std::vector<bool>& removed, std::vector<Node>* nodes);

// Records that `into` absorbed `part` (and what `part` had absorbed) for
// inspect's provenance (Node::absorbed).
void AbsorbInto(const Node& part, Node* into);

// A node of the default ONNX domain of type `type` without attributes (a
// node a rewrite gave an epilogue or other attributes is not plain).
bool IsPlainNode(const Node& node, const char* type);

// True when `reader` (whose op is `op`) reads `value` only for its shape
// (Shape, Size: Op::IsShapeOnlyInput) at every input it takes it at. A
// fusion that removes `value` must leave such readers a value of that shape.
bool ReadsOnlyShape(const Node& reader, const Op& op, const std::string& value);

// True when some node of `graph` holds a subgraph (If, Loop, Scan bodies),
// which may read any value of the graph by name: the passes that index uses
// in the main graph alone leave such graphs as they are.
bool HasSubgraphs(const Graph& graph);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OP_GRAPH_USES_H_
