// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Split (opsets 1-27): cuts the input along `axis` into one piece per output.
// Sizes come from `split` (an attribute in opsets 1-12, a host-known input in
// opset 1 and 13+), else from `num_outputs` (opset 18+; the last piece may
// be smaller), else equal pieces. One strided copy per output on the GPU.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

// The strided copies producing each output (index = output), and their shapes.
absl::StatusOr<std::vector<StridedCopy>> PlanSplit(const Node& node, const TensorDesc& in,
                                                   const HostTensor* split_input) {
  const int64_t rank = static_cast<int64_t>(in.shape.size());
  int64_t axis = node.GetInt("axis", 0);
  if (node.opset < 11 && axis < 0)
    return absl::InvalidArgumentError("negative axis needs opset 11");
  ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, rank));
  const int64_t dim = in.shape[axis];
  const int64_t n = static_cast<int64_t>(node.outputs.size());
  std::vector<int64_t> sizes;
  if (split_input != nullptr) {
    ASSIGN_OR_RETURN(sizes, HostInts(*split_input, "split"));
  } else if (node.opset < 13 && node.FindAttribute("split") != nullptr) {
    sizes = node.GetInts("split");
  } else if (node.opset >= 18 && node.FindAttribute("num_outputs") != nullptr) {
    const int64_t pieces = node.GetInt("num_outputs", n);
    if (pieces != n) {
      return absl::InvalidArgumentError(
          absl::StrCat("num_outputs is ", pieces, " but the node has ", n, " outputs"));
    }
    const int64_t chunk = (dim + n - 1) / n;
    for (int64_t i = 0; i < n; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  } else {
    if (n == 0 || dim % n != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot split dim ", dim, " into ", n, " equal pieces"));
    }
    sizes.assign(static_cast<size_t>(n), dim / n);
  }
  if (static_cast<int64_t>(sizes.size()) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("split has ", sizes.size(), " sizes for ", n, " outputs"));
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) return absl::InvalidArgumentError("split sizes must be >= 0");
    total += s;
  }
  if (total != dim) {
    return absl::InvalidArgumentError(
        absl::StrCat("split sizes add up to ", total, ", not the axis dim ", dim));
  }
  const std::vector<int64_t> in_strides = Strides(in.shape);
  std::vector<StridedCopy> copies;
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    StridedCopy c;
    c.dst_index = static_cast<int>(i);
    c.shape = in.shape;
    c.shape[axis] = sizes[i];
    c.src_strides = in_strides;
    c.dst_strides = Strides(c.shape);
    c.src_base = offset * in_strides[axis];
    offset += sizes[i];
    copies.push_back(std::move(c));
  }
  return copies;
}

class SplitOp : public Op {
 public:
  const OpTraits& traits() const override {
    static const OpTraits kTraits{.float16 = Float16Use::kMoves};
    return kTraits;
  }
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "axis", Attribute::Type::kInt));
    RETURN_IF_ERROR(CheckAttributeType(node, "split", Attribute::Type::kInts));
    return CheckAttributeType(node, "num_outputs", Attribute::Type::kInt);
  }
  bool IsHostInput(const Node& node, size_t input_index) const override {
    return input_index == 1 && (node.opset == 1 || node.opset >= 13);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* in, RequireInput(ctx, 0));
    const HostTensor* split = nullptr;
    if (IsHostInput(ctx.node, 1) && ctx.input(1) != nullptr) {
      ASSIGN_OR_RETURN(split, RequireHostInput(ctx, 1));
    }
    ASSIGN_OR_RETURN(std::vector<StridedCopy> copies, PlanSplit(ctx.node, *in, split));
    const bool fold = in->value != nullptr && in->num_elements() <= ctx.max_fold_elements;
    for (size_t o = 0; o < copies.size(); ++o) {
      TensorDesc& out = ctx.outputs[o];
      out.dtype = in->dtype;
      out.shape = copies[o].shape;
      if (fold) {
        HostTensor t = ZeroTensor(out.dtype, out.shape);
        copies[o].RunOnHost(*in->value, &t);
        out.value = Share(std::move(t));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc* split = IsHostInput(ctx.node(), 1) ? ctx.input(1) : nullptr;
    ASSIGN_OR_RETURN(std::vector<StridedCopy> copies,
                     PlanSplit(ctx.node(), *ctx.input(0), split ? split->value.get() : nullptr));
    std::vector<StridedCopy> used;
    for (size_t o = 0; o < copies.size(); ++o) {
      if (!ctx.node().outputs[o].empty()) used.push_back(std::move(copies[o]));
    }
    return CreateStridedCopyKernel(ctx, ctx.input(0)->dtype, std::move(used));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Split", 1, 27, SplitOp);

}  // namespace vkserve
