// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Attention fusion: recognizes scaled dot-product attention as the
// exporters write it,
//   MatMul(Q, Kt) -> [Div or Mul by a scalar constant] ->
//   [Add(mask) or Where(bool mask, ., very negative constant)] ->
//   Softmax(last axis) -> [Where(IsNaN(P), 0, P)] -> MatMul(., V)
// where Q and Kt may each be Mul'd by a scalar constant first (the dynamo
// and TorchScript exporters' sqrt(scale) on both; a scalar counts as
// constant when it is an initializer or planning folds it from shapes to
// one value at both signatures, FloatScalarAtLoad), and the NaN guard (a row that sees no
// key is 0) is fused as the kernel's empty-rows-zero mode
// and replaces it with one ONNX Attention node (opset 23), which runs the
// fused attention kernel (runtime/kernels/attention/flash_attention.h). Kt's Transpose, when
// it has no other reader, is turned into K's (the last two axes swapped back,
// dropped when that leaves K itself); otherwise a Transpose of Kt is added. Q, Kt and V must be 3-D
// or 4-D fp32 with the same leading dims (MatMul's batch broadcasting is not matched), the mask
// must cover every key (its last dim T at two batch signatures), and every intermediate must have
// no other reader. The node keeps the second MatMul's name and output; inspect shows it as
// "MatMul+Div+Add+Softmax+MatMul=Attention" (absorbed operand scales show as
// leading "Mul+" after the first "MatMul+"). A kAttentionKernelAttr on the
// Softmax (runtime/kernels/attention/attention_choice.h) moves to the Attention node, so
// tests can pin the kernel of a fused pattern.
#ifndef VKSERVE_RUNTIME_PASSES_ATTENTION_FUSION_H_
#define VKSERVE_RUNTIME_PASSES_ATTENTION_FUSION_H_

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
// how many attention blocks were fused (the caller re-finds ops).
absl::StatusOr<int> FuseAttention(Graph* graph, const ValueShapes& shapes1,
                                  const ValueShapes& shapes3);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_ATTENTION_FUSION_H_
