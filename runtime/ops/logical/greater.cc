// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Greater (opsets 7-27): A > B with numpy broadcasting, as bool
// (runtime/ops/logical/comparison_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/logical/comparison_op.h"

namespace vkserve {
namespace {

class GreaterOp : public ComparisonOp {
 public:
  GreaterOp() : ComparisonOp(Kind::kGreater) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Greater", 7, 27, GreaterOp);

}  // namespace vkserve
