// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// IsInf (opsets 10-27): true where a float is +inf (detect_positive, default
// 1) or -inf (detect_negative, default 1) (runtime/ops/logical/comparison_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/logical/comparison_op.h"

namespace vkserve {
namespace {

class IsInfOp : public ComparisonOp {
 public:
  IsInfOp() : ComparisonOp(Kind::kIsInf) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "IsInf", 10, 27, IsInfOp);

}  // namespace vkserve
