// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Mean (opsets 8-27): the elementwise mean of one or more inputs with numpy
// broadcasting (runtime/ops/math/binary_op.h).
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

class MeanOp : public BinaryOp {
 public:
  MeanOp() : BinaryOp(Kind::kAdd, Arity::kMean) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Mean", 8, 27, Float64ViaFloat32<MeanOp>);

}  // namespace vkserve
