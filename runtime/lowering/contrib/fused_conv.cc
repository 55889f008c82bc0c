// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// FusedConv (com.microsoft, since 1): ONNX Runtime's Conv with a fused
// activation and an optional sum input, written by its Conv+Activation and
// Conv+Add+Activation fusions. Inputs X, W, B?, Z?; Conv's attributes plus
// `activation`/`activation_params` (MLAS dialect, fused_activation.h).
// The CPU kernel accumulates the convolution onto Z (beta = 1) and applies the
// activation to the sum, so the node is
//   Y = activation(Conv(X, W, B) + Z)
// and becomes Conv [-> Add Z] [-> activation], which the epilogue fusion pass
// merges back into one "Conv+Add+Relu" kernel.
#include "runtime/lowering/contrib/fused_activation.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

// Conv's own attributes; FusedConv shares them with ONNX Conv-11.
constexpr const char* kConvAttributes[] = {"auto_pad", "kernel_shape", "dilations",
                                           "strides",  "pads",         "group"};

class FusedConvRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (stored.inputs.size() < 2 || stored.inputs.size() > 4 || ctx.input(0).empty() ||
        ctx.input(1).empty()) {
      return absl::InvalidArgumentError("FusedConv takes inputs X, W and optional B, Z");
    }
    if (stored.outputs.size() != 1 || ctx.output(0).empty()) {
      return absl::InvalidArgumentError("FusedConv has one output");
    }
    ASSIGN_OR_RETURN(FusedActivation activation, MlasActivationOf(stored));
    const std::string& z = ctx.input(3);
    const std::string& y = ctx.output(0);

    std::vector<std::string> conv_inputs = {ctx.input(0), ctx.input(1)};
    if (!ctx.input(2).empty()) conv_inputs.push_back(ctx.input(2));
    const bool last_is_conv = z.empty() && activation.empty();
    std::string conv_out = last_is_conv ? y : ctx.NewValueName("conv");
    Node& conv = ctx.AddNode("Conv", std::move(conv_inputs), {conv_out}, 11);
    for (const char* name : kConvAttributes) {
      if (const Attribute* a = stored.FindAttribute(name)) conv.attributes[name] = *a;
    }
    std::string sum = conv_out;
    if (!z.empty()) {
      sum = activation.empty() ? y : ctx.NewValueName("sum");
      ctx.AddNode("Add", {conv_out, z}, {sum}, 14);
    }
    if (!activation.empty()) AddActivationNodes(ctx, activation, sum, y);
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("com.microsoft", "FusedConv", 1, 1, FusedConvRewrite);

}  // namespace vkserve
