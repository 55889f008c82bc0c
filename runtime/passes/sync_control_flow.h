// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Where sync points (runtime/sync_split.h) meet control flow (If, Loop):
// which values a control-flow node's subgraphs read from the enclosing
// graph, whether a subgraph holds a node with data-dependent output shapes
// (which needs a sync point, so the enclosing node must be resolved before
// the graph can be cut there), and the load-time resolution of such nodes
// whose condition or trip count is a constant: the node is replaced in the
// graph by the branch it takes or by its unrolled iterations, through the
// op's own Expand, so the sync nodes inside become plain nodes of the graph.
// Pure functions; thread-safe.
#ifndef VKSERVE_RUNTIME_PASSES_SYNC_CONTROL_FLOW_H_
#define VKSERVE_RUNTIME_PASSES_SYNC_CONTROL_FLOW_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"
#include "runtime/op/op.h"

namespace vkserve {

// The names `node`'s subgraphs (nested ones included) read without defining
// them: values of the enclosing graphs.
std::set<std::string> CapturedValues(const Node& node);

// The first node with data-dependent output shapes (Op::sync_count_output)
// in `node`'s subgraphs, nested ones included; null when there is none.
const Node* SyncNodeInside(const Node& node);

// Replaces each If and Loop of `graph` that holds a sync node
// (SyncNodeInside) and whose host inputs (condition, trip count) are all
// initializers by what it expands to at those values, until none is left;
// `ops` is per graph.nodes and is not updated (match again when this
// returns > 0). Returns how many nodes it replaced. Loop keeps its
// 4,096-iteration limit; errors name the node.
absl::StatusOr<int> ResolveControlFlowAtLoad(Graph* graph, const std::vector<const Op*>& ops,
                                             int64_t max_fold_elements);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_SYNC_CONTROL_FLOW_H_
