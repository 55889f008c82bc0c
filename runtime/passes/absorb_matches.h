// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// AbsorbMatches: the apply loop of the chain fusions (gelu_fusion,
// norm_fusion). A matcher names, for a node, the chain ending there: the
// nodes it absorbs (`parts`) and the node that becomes the fused one
// (`last`). Chains are taken in node order, a chain overlapping one taken
// before is left alone, each taken chain's parts are absorbed into its last
// node (AbsorbInto, for inspect's provenance) and removed, and `write`
// turns the last node into the fused op. Stateless; runs on one graph.
#ifndef VKSERVE_RUNTIME_PASSES_ABSORB_MATCHES_H_
#define VKSERVE_RUNTIME_PASSES_ABSORB_MATCHES_H_

#include <cstddef>
#include <vector>

#include "runtime/ir/graph.h"
#include "runtime/op/graph_uses.h"

namespace vkserve {

// `match_at(n)` returns an optional match with `parts` and `last`;
// `write(match)` rewrites graph->nodes[match.last]. Returns the chains
// fused.
template <typename MatchAt, typename Write>
int AbsorbMatches(Graph* graph, MatchAt match_at, Write write) {
  std::vector<bool> removed(graph->nodes.size(), false);
  int fused = 0;
  for (size_t n = 0; n < graph->nodes.size(); ++n) {
    const auto m = match_at(n);
    if (!m) continue;
    bool taken = removed[m->last];
    for (size_t p : m->parts) taken = taken || removed[p];
    if (taken) continue;
    for (size_t p : m->parts) {
      removed[p] = true;
      AbsorbInto(graph->nodes[p], &graph->nodes[m->last]);
    }
    write(*m);
    ++fused;
  }
  if (fused == 0) return 0;
  EraseNodes(removed, &graph->nodes);
  return fused;
}

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_ABSORB_MATCHES_H_
