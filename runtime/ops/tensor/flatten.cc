// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Flatten (opsets 1-27): input 0 as a 2-D matrix [prod(dims[:axis]),
// prod(dims[axis:])], axis in [0, rank] (negative from opset 11). An alias.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

class FlattenOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    return CheckAttributeType(node, "axis", Attribute::Type::kInt);
  }
  Execution execution() const override { return Execution::kAlias; }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* in, RequireInput(ctx, 0));
    const int64_t rank = static_cast<int64_t>(in->shape.size());
    int64_t axis = ctx.node.GetInt("axis", 1);
    const int64_t lowest = ctx.node.opset >= 11 ? -rank : 0;
    if (axis < lowest || axis > rank) {
      return absl::InvalidArgumentError(
          absl::StrCat("axis ", axis, " is out of range for rank ", rank));
    }
    if (axis < 0) axis += rank;
    int64_t outer = 1;
    int64_t inner = 1;
    for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= in->shape[i];
    SetAliasOutput(ctx, {outer, inner});
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Flatten", 1, 27, FlattenOp);

}  // namespace vkserve
