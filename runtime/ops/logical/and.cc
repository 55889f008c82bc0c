// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// And (opsets 7-27): logical and of two bool tensors with numpy broadcasting
// (runtime/ops/logical/comparison_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/logical/comparison_op.h"

namespace vkserve {
namespace {

class AndOp : public ComparisonOp {
 public:
  AndOp() : ComparisonOp(Kind::kAnd) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "And", 7, 27, AndOp);

}  // namespace vkserve
