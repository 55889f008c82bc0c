// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Less (opsets 7-27): A < B with numpy broadcasting, as bool
// (runtime/ops/logical/comparison_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/logical/comparison_op.h"

namespace vkserve {
namespace {

class LessOp : public ComparisonOp {
 public:
  LessOp() : ComparisonOp(Kind::kLess) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Less", 7, 27, LessOp);

}  // namespace vkserve
