// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BitShift (opsets 11-27): unsigned integers shifted by `direction` ("LEFT"
// or "RIGHT"), numpy broadcasting (runtime/ops/math/binary_op.h).
#include "runtime/op/op_registry.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

class BitShiftOp : public BinaryOp {
 public:
  BitShiftOp() : BinaryOp(Kind::kShiftLeft) {}

  absl::Status Validate(const Node& node) const override {
    const std::string direction = node.GetString("direction", "");
    if (direction != "LEFT" && direction != "RIGHT") {
      return absl::InvalidArgumentError("direction must be \"LEFT\" or \"RIGHT\"");
    }
    return absl::OkStatus();
  }

 protected:
  Kind KindOf(const Node& node) const override {
    return node.GetString("direction", "") == "LEFT" ? Kind::kShiftLeft : Kind::kShiftRight;
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "BitShift", 11, 27, BitShiftOp);

}  // namespace vkserve
