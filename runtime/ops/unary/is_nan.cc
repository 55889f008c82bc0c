// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// IsNaN (opsets 9-27): true where a float is NaN; exporters guard Softmax and
// attention masks with it (runtime/ops/logical/comparison_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/logical/comparison_op.h"

namespace vkserve {
namespace {

class IsNaNOp : public ComparisonOp {
 public:
  IsNaNOp() : ComparisonOp(Kind::kIsNaN) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "IsNaN", 9, 27, IsNaNOp);

}  // namespace vkserve
