// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ReduceMax (opsets 1-27): the maximum over the axes (runtime/ops/reduction/reduce_op.h);
// axes is input 1 from opset 18.
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/reduction/reduce_op.h"

namespace vkserve {

using ReduceMaxOp = ReduceKindOp<ReduceOp::Kind::kMax, 18>;

VKSERVE_REGISTER_OP("", "ReduceMax", 1, 27, ExactViaFloat32<Float64ViaFloat32<ReduceMaxOp>>);

}  // namespace vkserve
