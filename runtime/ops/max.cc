// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Max (opsets 8-27): the elementwise maximum of one or more inputs with numpy
// broadcasting (runtime/ops/binary_op.h).
#include "runtime/op_registry.h"
#include "runtime/ops/binary_op.h"
#include "runtime/ops/via_float32.h"

namespace vkserve {
namespace {

class MaxOp : public BinaryOp {
 public:
  MaxOp() : BinaryOp(Kind::kMax, Arity::kVariadic) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Max", 8, 27, Float64ViaFloat32<MaxOp>);

}  // namespace vkserve
