// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/pass_through.h"

#include <map>
#include <string>
#include <vector>

#include "runtime/op/graph_uses.h"

namespace vkserve {
namespace {

// One named input and one named output, which its op says is that input.
bool IsPassThrough(const Node& node, const Op& op) {
  if (node.inputs.size() != 1 || node.inputs[0].empty() || node.outputs.size() != 1 ||
      node.outputs[0].empty()) {
    return false;
  }
  return op.traits().PassesThrough(node);
}

}  // namespace

int DropPassThroughNodes(Graph* graph, const std::vector<const Op*>& ops) {
  if (HasSubgraphs(*graph)) return 0;
  const GraphUses uses(*graph);
  // What each removed output reads as, following chains of pass-throughs
  // (nodes are in topological order, so a chain's source is mapped first).
  std::map<std::string, std::string> source;
  std::vector<bool> removed(graph->nodes.size(), false);
  int dropped = 0;
  for (size_t n = 0; n < graph->nodes.size(); ++n) {
    const Node& node = graph->nodes[n];
    if (!IsPassThrough(node, *ops[n]) || uses.IsGraphOutput(node.outputs[0])) continue;
    auto it = source.find(node.inputs[0]);
    source[node.outputs[0]] = it == source.end() ? node.inputs[0] : it->second;
    removed[n] = true;
    ++dropped;
  }
  if (dropped == 0) return 0;
  for (size_t n = 0; n < graph->nodes.size(); ++n) {
    if (!removed[n]) continue;
    // Into the first reader, in node order: a removed reader passes what it
    // absorbed on in turn, so a chain ends in the node that stays.
    const std::vector<size_t>& readers = uses.Readers(graph->nodes[n].outputs[0]);
    if (!readers.empty()) AbsorbInto(graph->nodes[n], &graph->nodes[readers[0]]);
  }
  for (size_t n = 0; n < graph->nodes.size(); ++n) {
    if (removed[n]) continue;
    for (std::string& in : graph->nodes[n].inputs) {
      auto it = source.find(in);
      if (it != source.end()) in = it->second;
    }
  }
  EraseNodes(removed, &graph->nodes);
  return dropped;
}

}  // namespace vkserve
