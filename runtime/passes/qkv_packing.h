// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// QKV packing: lets a 3-D Attention node (runtime/passes/attention_layout.h) read
// Q, K and V from one [B, S, Q|K|V] tensor in place
// (kAttentionPackedQkvAttr, runtime/kernels/attention/flash_attention.h) where the graph
// computes them together or can:
//   - a Split of one projection along its last axis into exactly Q, K, V
//     (GPT-2's c_attn): the Split, a copy of every byte, goes;
//   - three MatMuls of the same X by weight initializers [E, n] (each
//     optionally followed by an Add of a bias initializer [n]; all three or
//     none), as BERT's query/key/value: one MatMul by the weights side by
//     side ([E, nq + nk + nv], a new initializer) and one bias Add, so X is
//     read once and the GEMM is three times as wide.
// fp32 only; every replaced value must be read by the Attention alone, or
// else only for its shape (a Split then stays for those readers, with no
// dispatch: nothing reads its bytes).
// inspect shows the node's name with "(QKV packed)" appended.
#ifndef VKSERVE_RUNTIME_PASSES_QKV_PACKING_H_
#define VKSERVE_RUNTIME_PASSES_QKV_PACKING_H_

#include <vector>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"
#include "runtime/op/op.h"
#include "runtime/passes/pass.h"

namespace vkserve {

// Main graph only, and only when it holds no control-flow subgraph (scope
// kMainGraphWithoutSubgraphs, load_passes.h): it reads inferred shapes and uses
// across the graph, and a subgraph may read any value of the graph by name.
//
// Rewrites `graph` in place; `ops` are the ops of its nodes, in order, and
// `shapes1` its values' shapes with the free input dimensions at 1
// (PassContext::ShapesAt). Returns how many Attention nodes now read packed
// Q/K/V.
absl::StatusOr<int> PackQkv(Graph* graph, const std::vector<const Op*>& ops,
                            const ValueShapes& shapes1);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_QKV_PACKING_H_
