// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ReduceMin (opsets 1-27): the minimum over the axes (runtime/ops/reduce_op.h);
// axes is input 1 from opset 18.
#include "runtime/op_registry.h"
#include "runtime/ops/reduce_op.h"
#include "runtime/ops/via_float32.h"

namespace vkserve {

using ReduceMinOp = ReduceKindOp<ReduceOp::Kind::kMin, 18>;

VKSERVE_REGISTER_OP("", "ReduceMin", 1, 27, ExactViaFloat32<Float64ViaFloat32<ReduceMinOp>>);

}  // namespace vkserve
