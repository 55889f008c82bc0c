// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Mul (opsets 7-27) with numpy broadcasting (runtime/ops/binary_op.h).
#include "runtime/op_registry.h"
#include "runtime/ops/binary_op.h"
#include "runtime/ops/via_float32.h"

namespace vkserve {
namespace {

class MulOp : public BinaryOp {
 public:
  MulOp() : BinaryOp(Kind::kMul) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Mul", 7, 27, Float64ViaFloat32<MulOp>);

}  // namespace vkserve
