// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LogSoftmax (opsets 1-27): the log of the softmax along an axis
// (runtime/ops/softmax_op.h).
#include "runtime/op_registry.h"
#include "runtime/ops/softmax_op.h"

namespace vkserve {

VKSERVE_REGISTER_OP("", "LogSoftmax", 1, 27, SoftmaxKindOp<SoftmaxOp::Kind::kLogSoftmax>);

}  // namespace vkserve
