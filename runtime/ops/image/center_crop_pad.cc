// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// CenterCropPad (opsets 18-27): each of `axes` (default all) cropped or
// zero-padded to the size in `shape` (input 1, host-known), centered (the
// extra element of an odd difference at the end), any element type: a fill
// with zeros when anything is padded, then one strided copy of the kept
// region (runtime/kernels/strided_copy.h).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

struct CenterCropPadPlan {
  std::vector<int64_t> out_shape;
  StridedCopy copy;  // the kept region
  bool padded = false;
};

absl::StatusOr<CenterCropPadPlan> CenterCropPadPlanOf(const Node& node,
                                                      const std::vector<int64_t>& in,
                                                      const HostTensor& shape_value) {
  ASSIGN_OR_RETURN(const std::vector<int64_t> sizes, HostInts(shape_value, "shape"));
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> axes = node.GetInts("axes");
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  ASSIGN_OR_RETURN(axes, NormalizeAxes(axes, rank));
  if (sizes.size() != axes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape has ", sizes.size(), " entries for ", axes.size(), " axes"));
  }
  CenterCropPadPlan p;
  p.out_shape = in;
  for (size_t k = 0; k < axes.size(); ++k) {
    if (sizes[k] < 0) return absl::InvalidArgumentError("shape entries must not be negative");
    p.out_shape[axes[k]] = sizes[k];
  }
  const std::vector<int64_t> src = Strides(in), dst = Strides(p.out_shape);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t kept = std::min(in[d], p.out_shape[d]);
    p.copy.shape.push_back(kept);
    p.copy.src_strides.push_back(src[d]);
    p.copy.dst_strides.push_back(dst[d]);
    if (in[d] > p.out_shape[d]) p.copy.src_base += (in[d] - p.out_shape[d]) / 2 * src[d];
    if (in[d] < p.out_shape[d]) {
      p.copy.dst_base += (p.out_shape[d] - in[d]) / 2 * dst[d];
      p.padded = true;
    }
  }
  return p;
}

class CenterCropPadOp : public Op {
 public:
  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index == 1;
  }

  absl::Status Validate(const Node& node) const override {
    return CheckAttributeType(node, "axes", Attribute::Type::kInts);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const HostTensor* shape, RequireHostInput(ctx, 1));
    ASSIGN_OR_RETURN(CenterCropPadPlan p, CenterCropPadPlanOf(ctx.node, x->shape, *shape));
    TensorDesc& out = ctx.outputs[0];
    out.dtype = x->dtype;
    out.shape = p.out_shape;
    if (ShouldFold(ctx, out.num_elements()) && IsFoldableType(x->dtype)) {
      HostTensor t = ZeroTensor(out.dtype, out.shape);
      p.copy.RunOnHost(*x->value, &t);
      out.value = Share(std::move(t));
      return absl::OkStatus();
    }
    return CheckMovableType(x->dtype);
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    ASSIGN_OR_RETURN(CenterCropPadPlan p,
                     CenterCropPadPlanOf(ctx.node(), x.shape, *ctx.input(1)->value));
    std::vector<StridedCopy> copies;
    if (p.padded) {
      StridedCopy zeros;
      zeros.source = StridedCopy::Source::kConstant;
      zeros.src_index = static_cast<int>(ctx.AddConstant(std::vector<uint8_t>(8, 0)));
      zeros.shape = {NumElements(p.out_shape)};
      zeros.src_strides = {0};
      zeros.dst_strides = {1};
      copies.push_back(std::move(zeros));
    }
    p.copy.Simplify();
    copies.push_back(std::move(p.copy));
    return CreateStridedCopyKernel(ctx, x.dtype, std::move(copies));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "CenterCropPad", 18, 27, CenterCropPadOp);

}  // namespace vkserve
