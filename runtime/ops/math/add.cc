// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Add (opsets 7-27) with numpy broadcasting (runtime/ops/math/binary_op.h).
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

class AddOp : public BinaryOp {
 public:
  // The sum a fusion pass may fold into a GEMM's epilogue.
  AddOp() : BinaryOp(Kind::kAdd) { traits_.elementwise_add = true; }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Add", 7, 27, Float64ViaFloat32<AddOp>);

}  // namespace vkserve
