// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Sub (opsets 7-27) with numpy broadcasting (runtime/ops/math/binary_op.h).
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

class SubOp : public BinaryOp {
 public:
  SubOp() : BinaryOp(Kind::kSub) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Sub", 7, 27, Float64ViaFloat32<SubOp>);

}  // namespace vkserve
