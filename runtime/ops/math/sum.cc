// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Sum (opsets 8-27): the elementwise sum of one or more inputs with numpy
// broadcasting (runtime/ops/math/binary_op.h).
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

class SumOp : public BinaryOp {
 public:
  SumOp() : BinaryOp(Kind::kAdd, Arity::kVariadic) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Sum", 8, 27, Float64ViaFloat32<SumOp>);

}  // namespace vkserve
