// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// PRelu (opsets 7-27) with numpy broadcasting (runtime/ops/math/binary_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

class PReluOp : public BinaryOp {
 public:
  PReluOp() : BinaryOp(Kind::kPRelu) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "PRelu", 7, 27, PReluOp);

}  // namespace vkserve
