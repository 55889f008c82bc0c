// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ReduceMean (opsets 1-27): the mean over the axes (runtime/ops/reduction/reduce_op.h);
// axes is input 1 from opset 18.
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/reduction/reduce_op.h"

namespace vkserve {

using ReduceMeanOp = ReduceKindOp<ReduceOp::Kind::kMean, 18>;

VKSERVE_REGISTER_OP("", "ReduceMean", 1, 27, Float64ViaFloat32<ReduceMeanOp>);

}  // namespace vkserve
