// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Swish (opsets 24-27), fp32: an activation (runtime/ops/unary_op.h) with
// attribute(s) alpha; the formula is in shaders/common/activation.glsl and
// runtime/activation.cc.
#include "runtime/op_registry.h"
#include "runtime/op_util.h"
#include "runtime/ops/unary_op.h"

namespace vkserve {
namespace {

class SwishOp : public ActivationOp {
 public:
  SwishOp() : ActivationOp(Activation::kSwish) {}

  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "alpha", Attribute::Type::kFloat));
    return absl::OkStatus();
  }

 protected:
  absl::StatusOr<ActivationParams> ParamsOf(const Node& node,
                                            const ConstantInput& /*constant*/) const override {
    ActivationParams p;
    p.kind = Activation::kSwish;
    p.alpha = node.GetFloat("alpha", 1.0f);
    return p;
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Swish", 24, 27, SwishOp);

}  // namespace vkserve
