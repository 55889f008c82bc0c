// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GELU fusion: recognizes GELU written out in elementary ops, as exporters
// emit it for opsets before 20,
//   exact: x * 0.5 * (1 + Erf(x / sqrt(2)))            (or Erf(x * 1/sqrt(2)))
//   tanh:  x * 0.5 * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
//          (x^3 as Pow(x, 3), x * x * x or (x * x) * x)
// with the final products of x, 0.5 and the bracket in any of their orders,
// and replaces each with one ONNX Gelu node (opset 20; approximate "tanh"
// for the second form). The epilogue fusion (fusion.h) then folds that Gelu
// into a preceding MatMul, Gemm or Conv, so the activation costs no pass
// over memory of its own. Constants must be float32 scalar initializers
// within 1e-4 (relative) of the formula's, and every intermediate must have
// no reader outside the pattern. The Gelu node takes the last Mul's name and
// output; inspect shows it as "Div+Erf+Add+Mul+Mul=Gelu".
#ifndef VKSERVE_RUNTIME_PASSES_GELU_FUSION_H_
#define VKSERVE_RUNTIME_PASSES_GELU_FUSION_H_

#include "runtime/ir/graph.h"

namespace vkserve {

// Safe in control-flow subgraphs (scope kEveryGraph, load_passes.h): it matches
// chains within one graph, and the pipeline lists the values a nested body
// reads as outputs, which no chain absorbs.
//
// Rewrites `graph` in place. Returns how many GELUs were fused.
int FuseGelu(Graph* graph);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_GELU_FUSION_H_
