// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LessOrEqual (opsets 12-27): A <= B with numpy broadcasting, as bool
// (runtime/ops/logical/comparison_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/logical/comparison_op.h"

namespace vkserve {
namespace {

class LessOrEqualOp : public ComparisonOp {
 public:
  LessOrEqualOp() : ComparisonOp(Kind::kLessOrEqual) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "LessOrEqual", 12, 27, LessOrEqualOp);

}  // namespace vkserve
