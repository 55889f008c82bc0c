// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Selu (opsets 6-27), fp32: an activation (runtime/ops/unary/unary_op.h) with
// attribute(s) alpha, gamma; the formula is in shaders/common/activation.glsl and
// runtime/op/activation.cc.
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"
#include "runtime/ops/unary/unary_op.h"

namespace vkserve {
namespace {

class SeluOp : public ActivationOp {
 public:
  SeluOp() : ActivationOp(Activation::kSelu) {}

  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "alpha", Attribute::Type::kFloat));
    RETURN_IF_ERROR(CheckAttributeType(node, "gamma", Attribute::Type::kFloat));
    return absl::OkStatus();
  }

 protected:
  absl::StatusOr<ActivationParams> ParamsOf(const Node& node,
                                            const ConstantInput& /*constant*/) const override {
    ActivationParams p;
    p.kind = Activation::kSelu;
    p.alpha = node.GetFloat("alpha", 1.67326319217681884765625f);
    p.beta = node.GetFloat("gamma", 1.05070102214813232421875f);
    return p;
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Selu", 6, 27, SeluOp);

}  // namespace vkserve
