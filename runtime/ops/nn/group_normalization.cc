// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GroupNormalization (opsets 18-27): each group of channels of each sample normalized, then scaled
// and shifted (per group at opset 18, per channel from 21) (runtime/ops/nn/normalize_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/nn/normalize_op.h"

namespace vkserve {

VKSERVE_REGISTER_OP("", "GroupNormalization", 18, 27, NormalizeKindOp<NormalizeOp::Kind::kGroup>);

}  // namespace vkserve
