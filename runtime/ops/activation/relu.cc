// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Relu (opsets 6-27), fp32: an activation (runtime/ops/unary/unary_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/unary/unary_op.h"

namespace vkserve {
namespace {

class ReluOp : public ActivationOp {
 public:
  ReluOp() : ActivationOp(Activation::kRelu) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Relu", 6, 27, ReluOp);

}  // namespace vkserve
