// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Div (opsets 7-27) with numpy broadcasting (runtime/ops/math/binary_op.h).
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

class DivOp : public BinaryOp {
 public:
  DivOp() : BinaryOp(Kind::kDiv) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Div", 7, 27, Float64ViaFloat32<DivOp>);

}  // namespace vkserve
