// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ReduceLogSumExp (opsets 1-27): log(sum(exp(x))), computed with the maximum subtracted over the
// axes (runtime/ops/reduction/reduce_op.h); axes is input 1 from opset 18.
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/reduction/reduce_op.h"

namespace vkserve {

using ReduceLogSumExpOp = ReduceKindOp<ReduceOp::Kind::kLogSumExp, 18>;

VKSERVE_REGISTER_OP("", "ReduceLogSumExp", 1, 27, Float64ViaFloat32<ReduceLogSumExpOp>);

}  // namespace vkserve
