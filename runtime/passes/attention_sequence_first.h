// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Attention sequence-first: lets a 4-D Attention node ([N, H, S, E]
// operands) read Q, K and V where torch.nn.MultiheadAttention's slow path
// (sequence-first, as the TorchScript exporter writes it: torchvision's
// ViT) computes them, and write its output in that layout, dropping the
// data movement around it. The exporter writes
//   in_proj [S, N, 3*H*E] -> Reshape [S, N, 3, H*E] -> Unsqueeze ->
//   Transpose(3, 1, 2, 0, 4) -> Squeeze -> [3, S, N, H*E] -> Gather 0/1/2 ->
//   Reshape [S, N*H, E] -> Transpose(1, 0, 2) -> Reshape [N, H, S, E]
//   Attention -> Transpose(2, 0, 1, 3) [S, N, H, E] -> ...
// Each operand's chain of data-movement nodes (runtime/op/strided_view.h) is followed
// back as far as its elements stay a [N, H, S, E] view of a 3-D [S, N, W]
// tensor at element strides (W, E, N*W, 1): a packed in_proj output read at
// the column offsets of Q, K and V (kAttentionPackedQkvAttr), or one such
// tensor per operand with W = H*E. The node then takes q_num_heads,
// kv_num_heads and kAttentionSequenceFirstAttr, so it writes [S, N, H*Ev];
// the head-merging Transpose(2, 0, 1, 3), its sole reader, becomes a
// Reshape of that output to [S, N, H, Ev] (the same bytes: no dispatch).
// Movement nodes nothing else reads go; those other nodes read only for
// their shapes (the exporter's Shape nodes) stay, and planning gives them no
// dispatch. Packed operands only where the fused kernel serves them (equal
// head sizes up to its limit, no softcap). Shapes are checked at two batch
// signatures; past keys and present outputs are not matched.
#ifndef VKSERVE_RUNTIME_PASSES_ATTENTION_SEQUENCE_FIRST_H_
#define VKSERVE_RUNTIME_PASSES_ATTENTION_SEQUENCE_FIRST_H_

#include <vector>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"
#include "runtime/passes/pass.h"

namespace vkserve {

// Main graph only, and only when it holds no control-flow subgraph (scope
// kMainGraphWithoutSubgraphs, load_passes.h): it reads inferred shapes and uses
// across the graph, and a subgraph may read any value of the graph by name.
//
// Rewrites `graph` in place; `shapes1` (`shapes3`) are its values' shapes with the free input
// dimensions at 1 (3): PassContext::ShapesAt. Returns how many Attention nodes now read the
// sequence-first layout.
absl::StatusOr<int> ReadAttentionSequenceFirst(Graph* graph, const ValueShapes& shapes1,
                                               const ValueShapes& shapes3);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_ATTENTION_SEQUENCE_FIRST_H_
