// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Hardmax (opsets 1-27): the one-hot of each row's first maximum along an axis
// (runtime/ops/math/softmax_op.h), fp32; float16, bfloat16 and double through
// fp32 (a comparison: exact but for double).
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/softmax_op.h"

namespace vkserve {

VKSERVE_REGISTER_OP("", "Hardmax", 1, 27,
                    FloatsViaFloat32<SoftmaxKindOp<SoftmaxOp::Kind::kHardmax>>);

}  // namespace vkserve
