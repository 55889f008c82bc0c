// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Cast (opsets 1-27): converts every element to the type `to`
// (runtime/kernels/cast_op.h).
#include "runtime/kernels/cast_op.h"
#include "runtime/op/op_registry.h"

namespace vkserve {
namespace {

class CastOp : public ConvertOp {
 public:
  absl::Status Validate(const Node& node) const override {
    return CastTypeAttribute(node).status();
  }

 protected:
  absl::StatusOr<DataType> TargetType(const Node& node, const TensorDesc* /*like*/) const override {
    return CastTypeAttribute(node);
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Cast", 1, 27, CastOp);

}  // namespace vkserve
