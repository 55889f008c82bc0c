// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// MeanVarianceNormalization (opsets 9-27): normalized to zero mean and unit variance over axes
// (default 0, 2, 3) (runtime/ops/nn/normalize_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/nn/normalize_op.h"

namespace vkserve {

VKSERVE_REGISTER_OP("", "MeanVarianceNormalization", 9, 27,
                    NormalizeKindOp<NormalizeOp::Kind::kMeanVariance>);

}  // namespace vkserve
