// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Shrink (opsets 9-27), fp32: an activation (runtime/ops/unary/unary_op.h) with
// attribute(s) lambd, bias; the formula is in shaders/common/activation.glsl and
// runtime/op/activation.cc.
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"
#include "runtime/ops/unary/unary_op.h"

namespace vkserve {
namespace {

class ShrinkOp : public ActivationOp {
 public:
  ShrinkOp() : ActivationOp(Activation::kShrink) {}

  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "lambd", Attribute::Type::kFloat));
    RETURN_IF_ERROR(CheckAttributeType(node, "bias", Attribute::Type::kFloat));
    return absl::OkStatus();
  }

 protected:
  absl::StatusOr<ActivationParams> ParamsOf(const Node& node,
                                            const ConstantInput& /*constant*/) const override {
    ActivationParams p;
    p.kind = Activation::kShrink;
    p.alpha = node.GetFloat("lambd", 0.5f);
    p.beta = node.GetFloat("bias", 0.0f);
    return p;
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Shrink", 9, 27, ShrinkOp);

}  // namespace vkserve
