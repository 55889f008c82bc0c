// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LpNormalization (opsets 1-27): divided by its L1 or L2 norm along axis
// (runtime/ops/nn/normalize_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/nn/normalize_op.h"

namespace vkserve {

VKSERVE_REGISTER_OP("", "LpNormalization", 1, 27, NormalizeKindOp<NormalizeOp::Kind::kLp>);

}  // namespace vkserve
