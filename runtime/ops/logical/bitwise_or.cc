// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BitwiseOr (opsets 18-27): bitwise OR of integers with numpy broadcasting
// (runtime/ops/math/binary_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

class BitwiseOrOp : public BinaryOp {
 public:
  BitwiseOrOp() : BinaryOp(Kind::kBitwiseOr) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "BitwiseOr", 18, 27, BitwiseOrOp);

}  // namespace vkserve
