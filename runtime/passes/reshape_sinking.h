// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Reshape sinking: moves a Reshape that separates a GEMM from the
// elementwise work after it below that work, so the epilogue fusion
// (fusion.h) can fold the work into the GEMM's store. The dynamo exporter
// writes GPT-2's MLP and projections as a 2-D Gemm whose [B*S, N] output is
// viewed as [B, S, N] before its activation or residual Add:
//   Gemm -> Reshape -> Gelu          becomes  Gemm -> Gelu -> Reshape
//   Gemm -> Reshape -> Add(., R)     becomes  Gemm -> Add(., R') -> Reshape
// with R' = Reshape(R, [-1, <the Gemm output's other dims>]), placed right
// after R's producer so the residual is ready before the Gemm runs. Only
// where the fusion follows: the Reshape is the GEMM output's only reader,
// the activation is any op with OpTraits::epilogue_activation, the Add is
// OpTraits::elementwise_add with R of the Reshape's output shape and computed
// before the GEMM, and the GEMM's output varies only in its first dim
// across batch sizes (checked at two signatures). A Reshape moves as a
// whole and stays an alias, so the results are unchanged.
#ifndef VKSERVE_RUNTIME_PASSES_RESHAPE_SINKING_H_
#define VKSERVE_RUNTIME_PASSES_RESHAPE_SINKING_H_

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
// (3): PassContext::ShapesAt. Returns how many Reshapes moved (the caller
// re-finds ops).
absl::StatusOr<int> SinkReshapes(Graph* graph, const std::vector<const Op*>& ops,
                                 const ValueShapes& shapes1, const ValueShapes& shapes3);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_RESHAPE_SINKING_H_
