// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// EyeLike (opsets 9-27): a 2-D tensor of the input's shape (its values are
// never read) with ones on diagonal k, zeros elsewhere, of type `dtype`
// (default the input's). Folded when small; else two strided copies from a
// constant [0, 1]: zeros everywhere, then ones along the diagonal.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/cast_op.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

absl::StatusOr<DataType> OutputType(const Node& node, DataType input) {
  if (node.FindAttribute("dtype") == nullptr) return input;
  Node cast = node;  // read `dtype` as Cast reads `to`
  cast.attributes["to"] = node.attributes.at("dtype");
  return CastTypeAttribute(cast);
}

// (first element, count) of diagonal k of a rows x cols matrix.
std::pair<int64_t, int64_t> Diagonal(int64_t rows, int64_t cols, int64_t k) {
  if (k >= 0) return {k, std::max<int64_t>(0, std::min(rows, cols - k))};
  return {-k * cols, std::max<int64_t>(0, std::min(rows + k, cols))};
}

class EyeLikeOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "k", Attribute::Type::kInt));
    return CheckAttributeType(node, "dtype", Attribute::Type::kInt);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    if (x->shape.size() != 2) return absl::InvalidArgumentError("EyeLike needs a 2-D input");
    ASSIGN_OR_RETURN(const DataType type, OutputType(ctx.node, x->dtype));
    TensorDesc& out = ctx.outputs[0];
    out.dtype = type;
    out.shape = x->shape;
    if (out.num_elements() <= ctx.max_fold_elements) {
      HostTensor t = ZeroTensor(type, out.shape);
      const auto [first, count] = Diagonal(x->shape[0], x->shape[1], ctx.node.GetInt("k", 0));
      for (int64_t i = 0; i < count; ++i) SetElementFromInt(&t, first + i * (x->shape[1] + 1), 1);
      out.value = Share(std::move(t));
      return absl::OkStatus();
    }
    return CheckMovableType(type);
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& out = ctx.output(0);
    HostTensor values = ZeroTensor(out.dtype, {2});
    SetElementFromInt(&values, 1, 1);
    const int index = static_cast<int>(ctx.AddConstant(values.data.ToVector()));
    StridedCopy zeros;
    zeros.source = StridedCopy::Source::kConstant;
    zeros.src_index = index;
    zeros.shape = {out.num_elements()};
    zeros.src_strides = {0};
    zeros.dst_strides = {1};
    const auto [first, count] = Diagonal(out.shape[0], out.shape[1], ctx.node().GetInt("k", 0));
    StridedCopy ones = zeros;
    ones.src_base = 1;
    ones.shape = {count};
    ones.dst_strides = {out.shape[1] + 1};
    ones.dst_base = first;
    return CreateStridedCopyKernel(ctx, out.dtype, {std::move(zeros), std::move(ones)});
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "EyeLike", 9, 27, EyeLikeOp);

}  // namespace vkserve
