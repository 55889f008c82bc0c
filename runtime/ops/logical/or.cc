// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Or (opsets 7-27): logical or of two bool tensors with numpy broadcasting
// (runtime/ops/logical/comparison_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/logical/comparison_op.h"

namespace vkserve {
namespace {

class OrOp : public ComparisonOp {
 public:
  OrOp() : ComparisonOp(Kind::kOr) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Or", 7, 27, OrOp);

}  // namespace vkserve
