// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// CastLike (opsets 15-27): converts input 0 to the element type of input 1
// (runtime/kernels/cast_op.h); input 1's values are never read.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/cast_op.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

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
