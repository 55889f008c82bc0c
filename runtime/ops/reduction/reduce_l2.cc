// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ReduceL2 (opsets 1-27): the Euclidean norm over the axes (runtime/ops/reduction/reduce_op.h);
// axes is input 1 from opset 18.
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/reduction/reduce_op.h"

namespace vkserve {

using ReduceL2Op = ReduceKindOp<ReduceOp::Kind::kL2, 18>;

VKSERVE_REGISTER_OP("", "ReduceL2", 1, 25, Float64ViaFloat32<ReduceL2Op>);

}  // namespace vkserve
