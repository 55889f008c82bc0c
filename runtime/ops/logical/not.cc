// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Not (opsets 1-27): logical not of a bool tensor
// (runtime/ops/logical/comparison_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/logical/comparison_op.h"

namespace vkserve {
namespace {

class NotOp : public ComparisonOp {
 public:
  NotOp() : ComparisonOp(Kind::kNot) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Not", 1, 27, NotOp);

}  // namespace vkserve
