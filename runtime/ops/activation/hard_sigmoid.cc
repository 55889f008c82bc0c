// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// HardSigmoid (opsets 6-27), fp32: an activation (runtime/ops/unary/unary_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/unary/unary_op.h"

namespace vkserve {
namespace {

class HardSigmoidOp : public ActivationOp {
 public:
  HardSigmoidOp() : ActivationOp(Activation::kHardSigmoid) {}

 protected:
  absl::StatusOr<ActivationParams> ParamsOf(const Node& node,
                                            const ConstantInput& /*constant*/) const override {
    ActivationParams p;
    p.kind = Activation::kHardSigmoid;
    p.alpha = node.GetFloat("alpha", 0.2f);
    p.beta = node.GetFloat("beta", 0.5f);
    return p;
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "HardSigmoid", 6, 27, HardSigmoidOp);

}  // namespace vkserve
