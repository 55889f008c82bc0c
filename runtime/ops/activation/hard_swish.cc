// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// HardSwish (opsets 14-27), fp32: an activation (runtime/ops/unary/unary_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/unary/unary_op.h"

namespace vkserve {
namespace {

class HardSwishOp : public ActivationOp {
 public:
  HardSwishOp() : ActivationOp(Activation::kHardSwish) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "HardSwish", 14, 27, HardSwishOp);

}  // namespace vkserve
