// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Hardmax (opsets 1-27): the one-hot of each row's first maximum along an axis
// (runtime/ops/softmax_op.h).
#include "runtime/op_registry.h"
#include "runtime/ops/softmax_op.h"

namespace vkserve {

VKSERVE_REGISTER_OP("", "Hardmax", 1, 27, SoftmaxKindOp<SoftmaxOp::Kind::kHardmax>);

}  // namespace vkserve
