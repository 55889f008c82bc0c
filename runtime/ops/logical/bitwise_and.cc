// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BitwiseAnd (opsets 18-27): bitwise AND of integers with numpy broadcasting
// (runtime/ops/math/binary_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

class BitwiseAndOp : public BinaryOp {
 public:
  BitwiseAndOp() : BinaryOp(Kind::kBitwiseAnd) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "BitwiseAnd", 18, 27, BitwiseAndOp);

}  // namespace vkserve
