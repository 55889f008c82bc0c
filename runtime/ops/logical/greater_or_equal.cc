// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GreaterOrEqual (opsets 12-27): A >= B with numpy broadcasting, as bool; BERT
// exports build attention masks with it (runtime/ops/logical/comparison_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/logical/comparison_op.h"

namespace vkserve {
namespace {

class GreaterOrEqualOp : public ComparisonOp {
 public:
  GreaterOrEqualOp() : ComparisonOp(Kind::kGreaterOrEqual) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "GreaterOrEqual", 12, 27, GreaterOrEqualOp);

}  // namespace vkserve
