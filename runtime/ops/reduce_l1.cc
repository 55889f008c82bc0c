// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ReduceL1 (opsets 1-27): the sum of absolute values over the axes (runtime/ops/reduce_op.h);
// axes is input 1 from opset 18.
#include "runtime/op_registry.h"
#include "runtime/ops/reduce_op.h"
#include "runtime/ops/via_float32.h"

namespace vkserve {

using ReduceL1Op = ReduceKindOp<ReduceOp::Kind::kL1, 18>;

VKSERVE_REGISTER_OP("", "ReduceL1", 1, 25, Float64ViaFloat32<ReduceL1Op>);

}  // namespace vkserve
