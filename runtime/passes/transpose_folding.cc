// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/transpose_folding.h"

#include <map>
#include <optional>
#include <string>

#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/graph_uses.h"
#include "runtime/passes/fusion.h"
#include "runtime/plan/planner.h"

namespace vkserve {
namespace {

using Shapes = std::map<std::string, TensorDesc>;

bool IsReshape(const Node& n) {
  return n.domain.empty() && n.op_type == "Reshape" && n.inputs.size() == 2 &&
         n.outputs.size() == 1;
}

// `flat` is `full` with its leading dims (all but the last two) merged.
bool MergesLeading(const std::vector<int64_t>& full, const std::vector<int64_t>& flat) {
  if (full.size() < 3 || flat.size() != 3) return false;
  int64_t lead = 1;
  for (size_t d = 0; d + 2 < full.size(); ++d) lead *= full[d];
  return flat[0] == lead && flat[1] == full[full.size() - 2] && flat[2] == full.back();
}

struct Chain {
  size_t flatten = 0, transpose = 0, unflatten = 0;
  std::string x;
  size_t rank = 0;
};

std::optional<Chain> ChainAt(const Graph& graph, const GraphUses& uses, const Shapes& s1,
                             const Shapes& s3, size_t t) {
  const Node& transpose = graph.nodes[t];
  if (!transpose.domain.empty() || transpose.op_type != "Transpose" ||
      transpose.inputs.size() != 1 || transpose.GetInts("perm") != std::vector<int64_t>{0, 2, 1}) {
    return std::nullopt;
  }
  std::optional<size_t> flatten = uses.SoleProducer(transpose.inputs[0], t);
  std::optional<size_t> unflatten = uses.SoleReader(transpose.outputs[0]);
  if (!flatten || !unflatten || !IsReshape(graph.nodes[*flatten]) ||
      !IsReshape(graph.nodes[*unflatten]) ||
      graph.nodes[*unflatten].inputs[0] != transpose.outputs[0]) {
    return std::nullopt;
  }
  Chain c{*flatten, t, *unflatten, graph.nodes[*flatten].inputs[0], 0};
  for (const Shapes* s : {&s1, &s3}) {
    auto x = s->find(c.x);
    auto flat = s->find(transpose.inputs[0]);
    auto out = s->find(graph.nodes[*unflatten].outputs[0]);
    if (x == s->end() || flat == s->end() || out == s->end()) return std::nullopt;
    const std::vector<int64_t>& full = x->second.shape;
    if (!MergesLeading(full, flat->second.shape)) return std::nullopt;
    std::vector<int64_t> swapped = full;
    std::swap(swapped[full.size() - 1], swapped[full.size() - 2]);
    if (out->second.shape != swapped) return std::nullopt;
    c.rank = full.size();
  }
  return c;
}

}  // namespace

absl::StatusOr<int> FoldFlattenedTransposes(Graph* graph, const ValueShapes& shapes1,
                                            const ValueShapes& shapes3) {
  const GraphUses uses(*graph);
  std::vector<bool> removed(graph->nodes.size(), false);
  int folded = 0;
  for (size_t t = 0; t < graph->nodes.size(); ++t) {
    std::optional<Chain> c = ChainAt(*graph, uses, shapes1, shapes3, t);
    if (!c || removed[c->flatten] || removed[c->transpose] || removed[c->unflatten]) continue;
    // The last Reshape becomes the Transpose (its name and output kept).
    Node& out = graph->nodes[c->unflatten];
    AbsorbInto(graph->nodes[c->flatten], &out);
    AbsorbInto(graph->nodes[c->transpose], &out);
    std::vector<int64_t> perm(c->rank);
    for (size_t d = 0; d < c->rank; ++d) perm[d] = static_cast<int64_t>(d);
    std::swap(perm[c->rank - 1], perm[c->rank - 2]);
    out.op_type = "Transpose";
    out.opset = 13;
    out.since_version = 0;
    out.inputs = {c->x};
    out.attributes.clear();
    out.attributes["perm"] = IntsAttribute(perm);
    out.attributes[kFusedNameAttr] = StringAttribute("Reshape+Transpose+Reshape=Transpose");
    removed[c->flatten] = removed[c->transpose] = true;
    ++folded;
  }
  if (folded == 0) return 0;
  EraseNodes(removed, &graph->nodes);
  return folded;
}

}  // namespace vkserve
