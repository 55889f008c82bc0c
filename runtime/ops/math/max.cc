// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Max (opsets 8-27): the elementwise maximum of one or more inputs with numpy
// broadcasting (runtime/ops/math/binary_op.h).
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

class MaxOp : public BinaryOp {
 public:
  MaxOp() : BinaryOp(Kind::kMax, Arity::kVariadic) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Max", 8, 27, Float64ViaFloat32<MaxOp>);

}  // namespace vkserve
