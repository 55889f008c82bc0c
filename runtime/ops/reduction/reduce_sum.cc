// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ReduceSum (opsets 1-27): the sum over the axes (runtime/ops/reduction/reduce_op.h);
// axes is input 1 from opset 13.
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/reduction/reduce_op.h"

namespace vkserve {

using ReduceSumOp = ReduceKindOp<ReduceOp::Kind::kSum, 13>;

VKSERVE_REGISTER_OP("", "ReduceSum", 1, 27, Float64ViaFloat32<ReduceSumOp>);

}  // namespace vkserve
