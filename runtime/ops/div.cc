// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Div (opsets 7-27) with numpy broadcasting (runtime/ops/binary_op.h).
#include "runtime/op_registry.h"
#include "runtime/ops/binary_op.h"
#include "runtime/ops/via_float32.h"

namespace vkserve {
namespace {

class DivOp : public BinaryOp {
 public:
  DivOp() : BinaryOp(Kind::kDiv) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Div", 7, 27, Float64ViaFloat32<DivOp>);

}  // namespace vkserve
