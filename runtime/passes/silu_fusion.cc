// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/silu_fusion.h"

#include <optional>
#include <string>
#include <vector>

#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/graph_uses.h"
#include "runtime/passes/fusion.h"

namespace vkserve {
namespace {

// The Sigmoid node that Mul node `n` multiplies its other operand by, when
// that operand is the Sigmoid's own input: x * Sigmoid(x).
std::optional<size_t> SigmoidOfOtherOperand(const Graph& graph, const GraphUses& uses, size_t n) {
  const Node& mul = graph.nodes[n];
  if (!IsPlainNode(mul, "Mul") || mul.inputs.size() != 2 || mul.outputs.size() != 1) {
    return std::nullopt;
  }
  for (int side = 0; side < 2; ++side) {
    std::optional<size_t> s = uses.SoleProducer(mul.inputs[side], n);
    if (!s) continue;
    const Node& sigmoid = graph.nodes[*s];
    if (IsPlainNode(sigmoid, "Sigmoid") && sigmoid.inputs.size() == 1 &&
        sigmoid.inputs[0] == mul.inputs[1 - side]) {
      return s;
    }
  }
  return std::nullopt;
}

}  // namespace

int FuseSilu(Graph* graph) {
  const GraphUses uses(*graph);
  std::vector<bool> removed(graph->nodes.size(), false);
  int fused = 0;
  for (size_t n = 0; n < graph->nodes.size(); ++n) {
    std::optional<size_t> sigmoid = SigmoidOfOtherOperand(*graph, uses, n);
    if (!sigmoid || removed[*sigmoid]) continue;
    Node& mul = graph->nodes[n];
    const std::string x = graph->nodes[*sigmoid].inputs[0];
    removed[*sigmoid] = true;
    AbsorbInto(graph->nodes[*sigmoid], &mul);
    mul.op_type = "Swish";
    mul.domain.clear();
    mul.opset = 24;
    mul.since_version = 0;
    mul.inputs = {x};
    mul.attributes.clear();
    mul.attributes["alpha"] = FloatAttribute(1.0f);
    mul.attributes[kFusedNameAttr] = StringAttribute("Sigmoid+Mul=Swish");
    ++fused;
  }
  if (fused == 0) return 0;
  EraseNodes(removed, &graph->nodes);
  return fused;
}

}  // namespace vkserve
