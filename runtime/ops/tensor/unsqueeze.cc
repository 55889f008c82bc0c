// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Unsqueeze (opsets 1-27): inserts size-1 dims at `axes` (an attribute
// before opset 13, a host-known input after), which index the output and may
// be negative from opset 11. An alias.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

class UnsqueezeOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "axes", Attribute::Type::kInts));
    if (node.opset < 13 && node.FindAttribute("axes") == nullptr) {
      return absl::InvalidArgumentError("attribute 'axes' is required before opset 13");
    }
    if (node.opset >= 13 && (node.inputs.size() < 2 || node.inputs[1].empty())) {
      return absl::InvalidArgumentError("input 'axes' is required");
    }
    return absl::OkStatus();
  }
  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index == 1;
  }
  Execution execution() const override { return Execution::kAlias; }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* in, RequireInput(ctx, 0));
    std::vector<int64_t> axes;
    if (ctx.node.opset < 13) {
      axes = ctx.node.GetInts("axes");
    } else {
      ASSIGN_OR_RETURN(const HostTensor* t, RequireHostInput(ctx, 1));
      ASSIGN_OR_RETURN(axes, HostInts(*t, "axes"));
    }
    const int64_t out_rank = static_cast<int64_t>(in->shape.size() + axes.size());
    ASSIGN_OR_RETURN(axes, NormalizeAxes(axes, out_rank));
    std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
    for (int64_t a : axes) inserted[a] = true;
    std::vector<int64_t> out;
    size_t next = 0;
    for (int64_t i = 0; i < out_rank; ++i) out.push_back(inserted[i] ? 1 : in->shape[next++]);
    SetAliasOutput(ctx, std::move(out));
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Unsqueeze", 1, 27, UnsqueezeOp);

}  // namespace vkserve
