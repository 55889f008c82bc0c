// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// FusedGemm (com.microsoft, since 1): ONNX Runtime's Gemm with a fused
// activation, written by its Gemm+Activation fusion. Gemm's inputs and
// attributes plus `activation` and `activation_alpha`/`_beta`/`_gamma`
// (element-wise functor dialect, fused_activation.h). The kernel is Gemm
// followed by the activation on its output, so the node becomes
// Gemm -> activation, which the epilogue fusion pass merges back.
#include "runtime/lowering/contrib/fused_activation.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

constexpr const char* kGemmAttributes[] = {"alpha", "beta", "transA", "transB"};

class FusedGemmRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (stored.inputs.size() < 2 || stored.inputs.size() > 3 || ctx.input(0).empty() ||
        ctx.input(1).empty()) {
      return absl::InvalidArgumentError("FusedGemm takes inputs A, B and optional C");
    }
    if (stored.outputs.size() != 1 || ctx.output(0).empty()) {
      return absl::InvalidArgumentError("FusedGemm has one output");
    }
    ASSIGN_OR_RETURN(FusedActivation activation, FunctorActivationOf(stored));
    const std::string& y = ctx.output(0);
    std::string gemm_out = activation.empty() ? y : ctx.NewValueName("gemm");
    Node& gemm = ctx.AddNode("Gemm", stored.inputs, {gemm_out}, 13);
    for (const char* name : kGemmAttributes) {
      if (const Attribute* a = stored.FindAttribute(name)) gemm.attributes[name] = *a;
    }
    if (!activation.empty()) AddActivationNodes(ctx, activation, gemm_out, y);
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("com.microsoft", "FusedGemm", 1, 1, FusedGemmRewrite);

}  // namespace vkserve
