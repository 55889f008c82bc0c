// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ReduceProd (opsets 1-27): the product over the axes (runtime/ops/reduction/reduce_op.h);
// axes is input 1 from opset 18.
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/reduction/reduce_op.h"

namespace vkserve {

using ReduceProdOp = ReduceKindOp<ReduceOp::Kind::kProd, 18>;

VKSERVE_REGISTER_OP("", "ReduceProd", 1, 27, Float64ViaFloat32<ReduceProdOp>);

}  // namespace vkserve
