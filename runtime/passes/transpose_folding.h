// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Transpose folding: a transpose of the last two axes written through a
// flattened batch,
//   Reshape [d0, ..., dk, a, b] -> [d0 * ... * dk, a, b]
//   -> Transpose(0, 2, 1) -> Reshape -> [d0, ..., dk, b, a]
// (the dynamo exporter's K' in scaled dot-product attention), becomes one
// Transpose of the original tensor with the last two axes swapped, so the
// attention fusion sees K' as a Transpose of K and drops it (attention_
// fusion.h) instead of adding a third pass over K. Every intermediate must
// have no other reader; shapes are checked at two batch signatures.
#ifndef VKSERVE_RUNTIME_PASSES_TRANSPOSE_FOLDING_H_
#define VKSERVE_RUNTIME_PASSES_TRANSPOSE_FOLDING_H_

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
// Rewrites `graph` in place; `shapes1` and `shapes3` are its values' shapes
// with the free input dimensions at 1 and 3 (PassContext::ShapesAt). Returns
// how many chains were folded (the caller re-finds ops).
absl::StatusOr<int> FoldFlattenedTransposes(Graph* graph, const ValueShapes& shapes1,
                                            const ValueShapes& shapes3);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_TRANSPOSE_FOLDING_H_
