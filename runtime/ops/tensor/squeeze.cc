// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Squeeze (opsets 1-27): removes size-1 dims — those listed in `axes` (an
// attribute before opset 13, an optional host-known input after; negative
// from opset 11), or every size-1 dim when none (or an empty list) are given.
// An alias.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

class SqueezeOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    return CheckAttributeType(node, "axes", Attribute::Type::kInts);
  }
  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index == 1;
  }
  Execution execution() const override { return Execution::kAlias; }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* in, RequireInput(ctx, 0));
    const int64_t rank = static_cast<int64_t>(in->shape.size());
    bool given = false;
    std::vector<int64_t> axes;
    if (ctx.node.opset < 13) {
      given = ctx.node.FindAttribute("axes") != nullptr;
      axes = ctx.node.GetInts("axes");
    } else if (ctx.input(1) != nullptr) {
      ASSIGN_OR_RETURN(const HostTensor* t, RequireHostInput(ctx, 1));
      ASSIGN_OR_RETURN(axes, HostInts(*t, "axes"));
      given = !axes.empty();  // an empty list means none, as in onnxruntime
    }
    std::vector<bool> drop(static_cast<size_t>(rank), false);
    if (given) {
      ASSIGN_OR_RETURN(axes, NormalizeAxes(axes, rank));
      for (int64_t a : axes) {
        if (in->shape[a] != 1) {
          return absl::InvalidArgumentError(absl::StrCat("cannot squeeze axis ", a, " of shape ",
                                                         ShapeString(in->shape), ": it is not 1"));
        }
        drop[a] = true;
      }
    } else {
      for (int64_t i = 0; i < rank; ++i) drop[i] = in->shape[i] == 1;
    }
    std::vector<int64_t> out;
    for (int64_t i = 0; i < rank; ++i) {
      if (!drop[i]) out.push_back(in->shape[i]);
    }
    SetAliasOutput(ctx, std::move(out));
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Squeeze", 1, 27, SqueezeOp);

}  // namespace vkserve
