// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ReduceLogSum (opsets 1-27): the log of the sum over the axes (runtime/ops/reduce_op.h);
// axes is input 1 from opset 18.
#include "runtime/op_registry.h"
#include "runtime/ops/reduce_op.h"
#include "runtime/ops/via_float32.h"

namespace vkserve {

using ReduceLogSumOp = ReduceKindOp<ReduceOp::Kind::kLogSum, 18>;

VKSERVE_REGISTER_OP("", "ReduceLogSum", 1, 27, Float64ViaFloat32<ReduceLogSumOp>);

}  // namespace vkserve
