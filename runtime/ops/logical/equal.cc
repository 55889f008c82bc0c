// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Equal (opsets 1-27): A == B with numpy broadcasting, as bool; in real models
// mostly shape arithmetic (`shape == -1` before Where), folded on the host
// (runtime/ops/logical/comparison_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/logical/comparison_op.h"

namespace vkserve {
namespace {

class EqualOp : public ComparisonOp {
 public:
  EqualOp() : ComparisonOp(Kind::kEqual) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Equal", 1, 27, EqualOp);

}  // namespace vkserve
