// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Attention layout: lets a 4-D Attention node ([B, H, S, E] operands) read
// and write the projections' own [B, S, H * E] layout, dropping the
// head-splitting and head-merging Transposes around it. Exporters write
//   X [B, S, H*E] -> Reshape [B, S, H, E] -> Transpose(0, 2, 1, 3)  (Q, K, V)
//   Attention -> Transpose(0, 2, 1, 3) -> Reshape [B, S, H*Ev]      (output)
// (or a Reshape of the merged heads to another shape, which then stays and
// reads the 3-D output), and the fused attention kernel takes the 3-D layout directly (ONNX
// Attention with q_num_heads / kv_num_heads), so each of those Transposes,
// a full pass over memory, goes. All four must match (the op takes 3-D
// operands and gives a 3-D output together), each Reshape and Transpose
// read only by the next step, at two batch signatures; past keys and
// present outputs are not matched. The merging Transpose may also be read
// for its shape alone (the TorchScript exporter's Shape nodes): it then
// stays as a Reshape of the 3-D output, which needs no dispatch. The Attention node keeps its name,
// takes the last Reshape's output and records what it absorbed for inspect.
#ifndef VKSERVE_RUNTIME_PASSES_ATTENTION_LAYOUT_H_
#define VKSERVE_RUNTIME_PASSES_ATTENTION_LAYOUT_H_

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
// `shapes1` (`shapes3`) its values' shapes with the free input dimensions at 1
// (3): PassContext::ShapesAt. Returns how many Attention nodes now use the 3-D
// layout.
absl::StatusOr<int> AbsorbAttentionHeadTransposes(Graph* graph, const std::vector<const Op*>& ops,
                                                  const ValueShapes& shapes1,
                                                  const ValueShapes& shapes3);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_ATTENTION_LAYOUT_H_
