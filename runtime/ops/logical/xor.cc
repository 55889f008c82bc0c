// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Xor (opsets 7-27): logical xor of two bool tensors with numpy broadcasting
// (runtime/ops/logical/comparison_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/logical/comparison_op.h"

namespace vkserve {
namespace {

class XorOp : public ComparisonOp {
 public:
  XorOp() : ComparisonOp(Kind::kXor) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Xor", 7, 27, XorOp);

}  // namespace vkserve
