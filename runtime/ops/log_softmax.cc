// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LogSoftmax (opsets 1-27): the log of the softmax along an axis
// (runtime/ops/softmax_op.h), fp32; float16, bfloat16 and double through
// fp32 (computed more precisely than in the narrow type).
#include "runtime/op_registry.h"
#include "runtime/ops/softmax_op.h"
#include "runtime/ops/via_float32.h"

namespace vkserve {

VKSERVE_REGISTER_OP("", "LogSoftmax", 1, 27,
                    FloatsViaFloat32<SoftmaxKindOp<SoftmaxOp::Kind::kLogSoftmax>>);

}  // namespace vkserve
