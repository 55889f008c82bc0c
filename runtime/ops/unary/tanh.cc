// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Tanh (opsets 6-27), fp32: an activation (runtime/ops/unary/unary_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/unary/unary_op.h"

namespace vkserve {
namespace {

class TanhOp : public ActivationOp {
 public:
  TanhOp() : ActivationOp(Activation::kTanh) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Tanh", 6, 27, TanhOp);

}  // namespace vkserve
