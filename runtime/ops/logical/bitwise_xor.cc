// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BitwiseXor (opsets 18-27): bitwise XOR of integers with numpy broadcasting
// (runtime/ops/math/binary_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

class BitwiseXorOp : public BinaryOp {
 public:
  BitwiseXorOp() : BinaryOp(Kind::kBitwiseXor) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "BitwiseXor", 18, 27, BitwiseXorOp);

}  // namespace vkserve
