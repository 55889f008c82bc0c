// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LeakyRelu (opsets 6-27), fp32: an activation (runtime/ops/unary_op.h).
#include "runtime/op_registry.h"
#include "runtime/ops/unary_op.h"

namespace vkserve {
namespace {

class LeakyReluOp : public ActivationOp {
 public:
  LeakyReluOp() : ActivationOp(Activation::kLeakyRelu) {}

 protected:
  absl::StatusOr<ActivationParams> ParamsOf(const Node& node,
                                            const ConstantInput& /*constant*/) const override {
    ActivationParams p;
    p.kind = Activation::kLeakyRelu;
    p.alpha = node.GetFloat("alpha", 0.01f);
    return p;
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "LeakyRelu", 6, 27, LeakyReluOp);

}  // namespace vkserve
