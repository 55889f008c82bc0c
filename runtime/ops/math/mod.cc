// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Mod (opsets 10-27) with numpy broadcasting (runtime/ops/math/binary_op.h):
// fmod = 0 (integers only) gives the divisor's sign, as Python's %; fmod = 1
// the dividend's, as C's fmod.
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

class ModOp : public BinaryOp {
 public:
  ModOp() : BinaryOp(Kind::kMod) {}

  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "fmod", Attribute::Type::kInt));
    const int64_t fmod = node.GetInt("fmod", 0);
    if (fmod != 0 && fmod != 1) return absl::InvalidArgumentError("fmod must be 0 or 1");
    return absl::OkStatus();
  }

 protected:
  Kind KindOf(const Node& node) const override {
    return node.GetInt("fmod", 0) != 0 ? Kind::kFmod : Kind::kMod;
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Mod", 10, 27, Float64ViaFloat32<ModOp>);

}  // namespace vkserve
