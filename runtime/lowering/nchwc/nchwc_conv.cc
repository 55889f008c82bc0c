// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// com.microsoft.nchwc Conv (since 1): ONNX Runtime's convolution on blocked
// tensors (nchwc_layout.h), written by its NchwcTransformer for Conv,
// FusedConv and BatchNormalization (as a 1x1 depthwise convolution). Inputs
// X, W (blocked, output channels padded), B? (padded), Sum?; Conv's
// attributes plus the MLAS activation (fused_activation.h). The kernel
// accumulates onto Sum and then applies the activation:
//   Y = activation(Conv(X, W, B) + Sum)
// With blocked values un-blocked to NCHW of the padded channel count, it
// becomes an ONNX Conv on the weights laid back out to OIHW, then Add Sum and
// the activation, which epilogue fusion merges back into the Conv.
#include "absl/strings/str_cat.h"
#include "runtime/lowering/contrib/fused_activation.h"
#include "runtime/lowering/nchwc/nchwc_layout.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

constexpr const char* kConvAttributes[] = {"auto_pad", "kernel_shape", "dilations",
                                           "strides",  "pads",         "group"};

// The Conv's weights un-blocked to OIHW, added as an initializer; returns its name.
absl::StatusOr<std::string> AddUnblockedWeights(RewriteContext& ctx, int64_t group) {
  const HostTensor* w = ctx.initializer(ctx.input(1));
  if (w == nullptr) {
    return absl::UnimplementedError(
        "nchwc Conv weights that are not an initializer are not supported");
  }
  RETURN_IF_ERROR(CheckNchwcFilter(*w, "nchwc Conv weights"));
  ASSIGN_OR_RETURN(int64_t block, NchwcBlockSize(ctx));
  ASSIGN_OR_RETURN(NchwcFilterLayout layout, NchwcFilterLayoutOf(w->shape, group, block));
  return ctx.AddInitializer("oihw_weights", UnblockNchwcFilter(*w, layout, block));
}

absl::Status CheckBias(const RewriteContext& ctx, int64_t out_channels) {
  const HostTensor* b = ctx.initializer(ctx.input(2));
  if (b != nullptr && (b->shape.size() != 1 || b->shape[0] != out_channels)) {
    return absl::InvalidArgumentError(absl::StrCat("nchwc Conv bias must have shape [",
                                                   out_channels, "], the padded output channels"));
  }
  return absl::OkStatus();
}

class NchwcConvRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (stored.inputs.size() < 2 || stored.inputs.size() > 4 || ctx.input(0).empty() ||
        ctx.input(1).empty() || stored.outputs.size() != 1 || ctx.output(0).empty()) {
      return absl::InvalidArgumentError(
          "nchwc Conv takes X, W, optional B and Sum, and has one output");
    }
    const Attribute* group_attr = stored.FindAttribute("group");
    if (group_attr != nullptr && group_attr->type != Attribute::Type::kInt) {
      return absl::InvalidArgumentError("attribute 'group' must be an int");
    }
    const int64_t group = stored.GetInt("group", 1);
    ASSIGN_OR_RETURN(FusedActivation activation, MlasActivationOf(stored));
    ASSIGN_OR_RETURN(std::string weights, AddUnblockedWeights(ctx, group));
    RETURN_IF_ERROR(CheckBias(ctx, ctx.initializer(weights)->shape[0]));

    const std::string& sum = ctx.input(3);
    const std::string& y = ctx.output(0);
    std::vector<std::string> conv_inputs = {ctx.input(0), weights};
    if (!ctx.input(2).empty()) conv_inputs.push_back(ctx.input(2));
    std::string conv_out = sum.empty() && activation.empty() ? y : ctx.NewValueName("conv");
    Node& conv = ctx.AddNode("Conv", std::move(conv_inputs), {conv_out}, 11);
    for (const char* name : kConvAttributes) {
      if (const Attribute* a = stored.FindAttribute(name)) conv.attributes[name] = *a;
    }
    std::string pre_activation = conv_out;
    if (!sum.empty()) {
      pre_activation = activation.empty() ? y : ctx.NewValueName("sum");
      ctx.AddNode("Add", {conv_out, sum}, {pre_activation}, 14);
    }
    if (!activation.empty()) AddActivationNodes(ctx, activation, pre_activation, y);
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE(kNchwcDomain, "Conv", 1, 1, NchwcConvRewrite);

}  // namespace vkserve
