// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// InstanceNormalization (opsets 6-27): each channel of each sample normalized over its spatial
// dims, then scaled and shifted per channel (runtime/ops/nn/normalize_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/nn/normalize_op.h"

namespace vkserve {

VKSERVE_REGISTER_OP("", "InstanceNormalization", 6, 27,
                    NormalizeKindOp<NormalizeOp::Kind::kInstance>);

}  // namespace vkserve
