// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Sigmoid (opsets 6-27), fp32: an activation (runtime/ops/unary/unary_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/unary/unary_op.h"

namespace vkserve {
namespace {

class SigmoidOp : public ActivationOp {
 public:
  SigmoidOp() : ActivationOp(Activation::kSigmoid) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Sigmoid", 6, 27, SigmoidOp);

}  // namespace vkserve
