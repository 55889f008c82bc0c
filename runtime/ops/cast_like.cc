// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// CastLike (opsets 15-27): converts input 0 to the element type of input 1
// (runtime/ops/cast_op.h); input 1's values are never read.
#include "absl/strings/str_cat.h"
#include "runtime/op_registry.h"
#include "runtime/op_util.h"
#include "runtime/ops/cast_op.h"
#include "runtime/ops/host_fold.h"

namespace vkserve {
namespace {

class CastLikeOp : public ConvertOp {
 protected:
  absl::StatusOr<DataType> TargetType(const Node& /*node*/, const TensorDesc* like) const override {
    if (like == nullptr) return absl::InvalidArgumentError("CastLike needs input 1 (target_type)");
    if (!IsFoldableType(like->dtype)) {
      return absl::UnimplementedError(absl::StrCat(
          "CastLike to ", std::string(DataTypeName(like->dtype)), " is not supported"));
    }
    return like->dtype;
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "CastLike", 15, 27, CastLikeOp);

}  // namespace vkserve
