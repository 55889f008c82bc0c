// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BitwiseNot (opsets 18-27): every bit of an integer flipped, computed as an
// Xor with all ones (runtime/ops/math/binary_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

class BitwiseNotOp : public BinaryOp {
 public:
  BitwiseNotOp() : BinaryOp(Kind::kBitwiseXor, Arity::kComplement) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "BitwiseNot", 18, 27, BitwiseNotOp);

}  // namespace vkserve
