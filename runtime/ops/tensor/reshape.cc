// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Reshape (opsets 1-27): input 0's bytes under a new shape, taken from the
// `shape` attribute before opset 5 and from the host-known input 1 after.
// A 0 copies the input's dim at that index (unless allowzero=1, opset 14+)
// and one -1 is inferred. An alias: no data moves.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

absl::StatusOr<std::vector<int64_t>> ReshapedShape(const std::vector<int64_t>& in_shape,
                                                   const std::vector<int64_t>& requested,
                                                   bool allow_zero) {
  std::vector<int64_t> out = requested;
  int infer_at = -1;
  int64_t known = 1;
  bool has_zero = false;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (infer_at >= 0) return absl::InvalidArgumentError("shape has more than one -1");
      infer_at = static_cast<int>(i);
      continue;
    }
    if (out[i] < -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", ShapeString(requested), " has a negative dim"));
    }
    if (out[i] == 0) {
      if (allow_zero) {
        has_zero = true;
      } else {
        if (i >= in_shape.size()) {
          return absl::InvalidArgumentError(
              absl::StrCat("shape ", ShapeString(requested), " copies dim ", i, " of input shape ",
                           ShapeString(in_shape), ", which it lacks"));
        }
        out[i] = in_shape[i];
      }
    }
    known *= out[i];
  }
  const int64_t total = NumElements(in_shape);
  if (infer_at >= 0) {
    if (has_zero || known == 0) {
      if (total != 0 || has_zero) {
        return absl::InvalidArgumentError(
            absl::StrCat("cannot infer the -1 of shape ", ShapeString(requested), " next to a 0"));
      }
      out[infer_at] = 0;
    } else {
      out[infer_at] = total / known;
    }
  }
  if (NumElements(out) != total) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot reshape ", ShapeString(in_shape), " to ", ShapeString(requested)));
  }
  return out;
}

class ReshapeOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "allowzero", Attribute::Type::kInt));
    if (node.opset < 5) {
      RETURN_IF_ERROR(CheckAttributeType(node, "shape", Attribute::Type::kInts));
      if (node.FindAttribute("shape") == nullptr) {
        return absl::InvalidArgumentError("attribute 'shape' is required before opset 5");
      }
    } else if (node.inputs.size() < 2 || node.inputs[1].empty()) {
      return absl::InvalidArgumentError("input 'shape' is required");
    }
    return absl::OkStatus();
  }

  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index == 1;
  }
  Execution execution() const override { return Execution::kAlias; }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* data, RequireInput(ctx, 0));
    std::vector<int64_t> requested;
    if (ctx.node.opset < 5) {
      requested = ctx.node.GetInts("shape");
    } else {
      ASSIGN_OR_RETURN(const HostTensor* shape, RequireHostInput(ctx, 1));
      ASSIGN_OR_RETURN(requested, HostInts(*shape, "shape"));
    }
    const bool allow_zero = ctx.node.opset >= 14 && ctx.node.GetInt("allowzero", 0) != 0;
    ASSIGN_OR_RETURN(std::vector<int64_t> out, ReshapedShape(data->shape, requested, allow_zero));
    SetAliasOutput(ctx, std::move(out));
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Reshape", 1, 27, ReshapeOp);

}  // namespace vkserve
