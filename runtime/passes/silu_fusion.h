// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SiLU fusion: recognizes x * Sigmoid(x), which exporters write for
// torch.nn.SiLU before opset 24 (EfficientNet, MobileNet-V3's Swish, YOLO,
// Llama's MLP), and replaces the pair with one ONNX Swish node (opset 24,
// alpha 1). The epilogue fusion (fusion.h) then folds that Swish into a
// preceding Conv, Gemm or MatMul: EfficientNet-B0 runs 49 such pairs, each
// two passes over memory of their own. Only where the Sigmoid is a plain
// ONNX node read by that Mul alone; the Mul's operands may come in either
// order. The Swish node takes the Mul's name and output; inspect shows it
// as "Sigmoid+Mul=Swish".
#ifndef VKSERVE_RUNTIME_PASSES_SILU_FUSION_H_
#define VKSERVE_RUNTIME_PASSES_SILU_FUSION_H_

#include "runtime/ir/graph.h"

namespace vkserve {

// Safe in control-flow subgraphs (scope kEveryGraph, load_passes.h): it matches
// chains within one graph, and the pipeline lists the values a nested body
// reads as outputs, which no chain absorbs.
//
// Rewrites `graph` in place. Returns how many pairs were fused.
int FuseSilu(Graph* graph);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PASSES_SILU_FUSION_H_
