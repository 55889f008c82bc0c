// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Epilogue fusion: folds the elementwise work that follows an op with a
// GEMM epilogue (OpTraits::epilogue_slots: Conv, Gemm, MatMul) — an activation
// (any op whose OpTraits::epilogue_activation names one: Relu, Clip, LeakyRelu,
// Sigmoid, HardSigmoid, HardSwish, Tanh, Erf, Gelu, QuickGelu, ...), a bias
// Add where the op has a bias slot (MatMul) and a same-shape residual Add
// (OpTraits::elementwise_add) — into that node, so its kernel applies them while
// storing its output instead of running separate dispatches over memory.
// No op type is named here: the ops' traits decide. The rewritten nodes
// carry the epilogue as attributes (activation.h) and keep their names;
// inspect shows them as "Conv+Add+Relu".
#ifndef VKSERVE_RUNTIME_PASSES_FUSION_H_
#define VKSERVE_RUNTIME_PASSES_FUSION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"
#include "runtime/op/op.h"
#include "runtime/passes/pass.h"

namespace vkserve {

// Main graph only, and only when it holds no control-flow subgraph (scope
// kMainGraphWithoutSubgraphs, load_passes.h): it reads inferred shapes and
// consumers across the graph, and a subgraph may read any value of the graph by
// name.
//
// Rewrites `graph` in place; `ops` are the ops of its nodes, in order, and
// `shapes1` (`shapes3`) its values' shapes with the free input dimensions at 1
// (3): PassContext::ShapesAt. Returns how many nodes were merged away. A
// residual Add is fused only when both operands have the same shape for every
// batch size (checked by shape inference at two signatures) and the residual is
// computed before the producer runs.
absl::StatusOr<int> FuseEpilogues(Graph* graph, const std::vector<const Op*>& ops,
                                  const ValueShapes& shapes1, const ValueShapes& shapes3);

// The inputs' declared shapes with every free dimension set to `value`: the
// fusion passes infer shapes at two such signatures to tell what varies
// with the batch.
std::vector<std::vector<int64_t>> ShapesWithFreeDims(const std::vector<ValueInfo>& inputs,
                                                     int64_t value);

// Turns Constant nodes whose `value` attribute holds the tensor, and
// Identity nodes of initializers, into initializers (their output names
// kept), so that a bias written as a Constant or passed through an Identity
// (the TorchScript exporter's habits for shared and folded parameters) fuses
// like one stored as an initializer. Nodes producing graph outputs stay.
// Returns how many nodes were lifted.
int LiftConstantNodes(Graph* graph);

// The attribute naming a fused node's parts for inspect ("Conv+Add+Relu").
inline constexpr char kFusedNameAttr[] = "_vkserve_fused";

// "Conv+Add+Relu" for a fused node, else its op type.
std::string FusedOpName(const Node& node);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_FUSION_H_
