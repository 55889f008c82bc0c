// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Normalization fusion: recognizes LayerNorm and RMSNorm written out in
// elementary ops, as exporters emit them (LayerNorm before opset 17, RMSNorm
// before ONNX's RMSNormalization in opset 23: LLaMA-style models),
//   LayerNorm: d = x - ReduceMean(x); d / Sqrt(ReduceMean(d^2) + eps)
//   RMSNorm:   x / Sqrt(ReduceMean(x^2) + eps)
//              (or x * Reciprocal(Sqrt(.)), or x * (1 / Sqrt(.)))
// each followed by an optional Mul by a scale and Add of a bias (float32
// initializers of the normalized dim), with the square as Pow(., 2) or
// d * d and every mean over the last axis with keepdims, and replaces it
// with one LayerNormalization node (opset 17; RMSNorm with _vkserve_rms,
// runtime/ops/nn/layer_normalization.h): one pass over each row instead of
// five to nine. Without a scale, the normalized dim must be fixed (a scale
// of ones is added). fp32 only; every intermediate must have no other
// reader. The node takes the last node's name and output; inspect shows it
// as e.g. "ReduceMean+Sub+Pow+ReduceMean+Add+Sqrt+Div+Mul+Add=LayerNormalization".
#ifndef VKSERVE_RUNTIME_PASSES_NORM_FUSION_H_
#define VKSERVE_RUNTIME_PASSES_NORM_FUSION_H_

#include <vector>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"
#include "runtime/op/op.h"
#include "runtime/passes/pass.h"

namespace vkserve {

// Main graph only, and only when it holds no control-flow subgraph (scope
// kMainGraphWithoutSubgraphs, load_passes.h): it reads inferred shapes (from
// the model's inputs), and a subgraph may read any value of the graph by name.
//
// Rewrites `graph` in place; `shapes1` and `shapes3` are its values' shapes
// with the free input dimensions at 1 and 3 (PassContext::ShapesAt). Returns
// how many normalizations were fused (the caller re-finds ops).
absl::StatusOr<int> FuseNormalizations(Graph* graph, const ValueShapes& shapes1,
                                       const ValueShapes& shapes3);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_NORM_FUSION_H_
