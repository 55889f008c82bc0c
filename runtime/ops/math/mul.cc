// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Mul (opsets 7-27) with numpy broadcasting (runtime/ops/math/binary_op.h).
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

class MulOp : public BinaryOp {
 public:
  MulOp() : BinaryOp(Kind::kMul) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Mul", 7, 27, Float64ViaFloat32<MulOp>);

}  // namespace vkserve
