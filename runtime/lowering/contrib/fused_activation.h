// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// FusedActivation: the activation that ONNX Runtime's fusing optimizers fold
// into a contrib node (FusedConv, FusedGemm, com.microsoft.nchwc Conv), read
// from the node's attributes and emitted back as plain ONNX nodes by a
// rewrite. The epilogue fusion pass (runtime/passes/fusion.h) then merges those nodes
// into the producing Conv/Gemm again, so nothing runs as a separate dispatch
// where vkserve can fuse it.
//
// ORT stores the activation in two dialects:
//  - MLAS (FusedConv, nchwc Conv): `activation` (string) and
//    `activation_params` (floats: LeakyRelu alpha; Clip min, max;
//    HardSigmoid alpha, beta; none for HardSwish, which ORT fuses from
//    x * HardSigmoid(x) with alpha 1/6 and beta 0.5), see
//    contrib_ops/cpu/fused_activation.cc.
//  - Element-wise functor (FusedGemm): `activation` and per-parameter
//    attributes `activation_alpha`, `activation_beta`, `activation_gamma`,
//    each defaulting to the plain op's own default.
#ifndef VKSERVE_RUNTIME_LOWERING_CONTRIB_FUSED_ACTIVATION_H_
#define VKSERVE_RUNTIME_LOWERING_CONTRIB_FUSED_ACTIVATION_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"
#include "runtime/op/rewrite.h"

namespace vkserve {

// An activation as the plain op that computes it: Relu, Tanh, Sigmoid, Silu,
// LeakyRelu, Clip, HardSigmoid, HardSwish, ScaledTanh or ThresholdedRelu; `op` empty
// means none (identity).
struct FusedActivation {
  std::string op;
  float alpha = 0;  // LeakyRelu/HardSigmoid/ScaledTanh/ThresholdedRelu alpha; Clip min
  float beta = 0;   // HardSigmoid/ScaledTanh beta; Clip max
  bool empty() const { return op.empty(); }
};

// The MLAS dialect (FusedConv, nchwc Conv). A missing `activation` is none;
// an unknown name or a wrong parameter count is INVALID_ARGUMENT, as ORT
// refuses the node.
absl::StatusOr<FusedActivation> MlasActivationOf(const Node& node);

// The element-wise functor dialect (FusedGemm). Activations that vkserve has
// no plain ops for (Elu, Selu, Softplus, ...) are UNIMPLEMENTED.
absl::StatusOr<FusedActivation> FunctorActivationOf(const Node& node);

// Appends the nodes computing `activation`(input) into `output`. REQUIRES:
// !activation.empty().
void AddActivationNodes(RewriteContext& ctx, const FusedActivation& activation,
                        const std::string& input, const std::string& output);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_LOWERING_CONTRIB_FUSED_ACTIVATION_H_
