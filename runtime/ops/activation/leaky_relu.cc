// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LeakyRelu (opsets 6-27), fp32 and fp16: an activation with attribute alpha
// (default 0.01; runtime/ops/unary/unary_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/unary/unary_op.h"

namespace vkserve {
namespace {

class LeakyReluOp final : public AlphaActivationOp<Activation::kLeakyRelu> {
 public:
  LeakyReluOp() : AlphaActivationOp(0.01f) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "LeakyRelu", 6, 27, LeakyReluOp);

}  // namespace vkserve
