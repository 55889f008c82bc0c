// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Slice (opsets 1-27): takes input[start:end:step] along some axes. Before
// opset 10 starts/ends/axes are attributes (step 1); from 10 they are
// host-known inputs, plus optional steps (negative steps walk backwards).
// Starts and ends are clamped as ONNX specifies, so INT64_MAX means "to the
// end". One strided copy on the GPU; folded when the input is host-known and
// the output small.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

struct SliceArgs {
  std::vector<int64_t> starts, ends, axes, steps;
};

template <typename InputFn>
absl::StatusOr<SliceArgs> GetSliceArgs(const Node& node, InputFn input) {
  SliceArgs a;
  if (node.opset < 10) {
    a.starts = node.GetInts("starts");
    a.ends = node.GetInts("ends");
    a.axes = node.GetInts("axes");
  } else {
    const char* names[] = {"starts", "ends", "axes", "steps"};
    std::vector<int64_t>* lists[] = {&a.starts, &a.ends, &a.axes, &a.steps};
    for (int i = 0; i < 4; ++i) {
      const TensorDesc* d = input(i + 1);
      if (d == nullptr) {
        if (i < 2)
          return absl::InvalidArgumentError(absl::StrCat("input '", names[i], "' is required"));
        continue;
      }
      if (d->value == nullptr) {
        return absl::UnimplementedError(
            absl::StrCat("input '", names[i],
                         "' must be known at load time (a constant, or computable from "
                         "shapes); vkserve never reads tensor data back in the middle of a run"));
      }
      ASSIGN_OR_RETURN(*lists[i], HostInts(*d->value, names[i]));
    }
  }
  if (a.axes.empty() && (node.opset < 10 || input(3) == nullptr)) {
    for (size_t i = 0; i < a.starts.size(); ++i) a.axes.push_back(static_cast<int64_t>(i));
  }
  if (a.steps.empty()) a.steps.assign(a.starts.size(), 1);
  if (a.ends.size() != a.starts.size() || a.axes.size() != a.starts.size() ||
      a.steps.size() != a.starts.size()) {
    return absl::InvalidArgumentError("starts, ends, axes and steps differ in length");
  }
  return a;
}

// The copy producing the output (whose shape is copy.shape).
absl::StatusOr<StridedCopy> PlanSlice(const std::vector<int64_t>& shape, const SliceArgs& args) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  ASSIGN_OR_RETURN(std::vector<int64_t> axes, NormalizeAxes(args.axes, rank));
  const std::vector<int64_t> strides = Strides(shape);
  StridedCopy c;
  c.shape = shape;
  c.src_strides = strides;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = axes[i];
    const int64_t dim = shape[axis];
    const int64_t step = args.steps[i];
    if (step == 0) return absl::InvalidArgumentError("slice step cannot be 0");
    int64_t start = args.starts[i];
    int64_t end = args.ends[i];
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    int64_t count;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      count = end > start ? (end - start - 1) / step + 1 : 0;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      count = start > end ? (start - end - 1) / -step + 1 : 0;
    }
    c.shape[axis] = count;
    c.src_strides[axis] = strides[axis] * step;
    if (count > 0) c.src_base += start * strides[axis];
  }
  c.dst_strides = Strides(c.shape);
  return c;
}

class SliceOp : public Op {
 public:
  const OpTraits& traits() const override {
    static const OpTraits kTraits{.float16 = Float16Use::kMoves};
    return kTraits;
  }
  absl::Status Validate(const Node& node) const override {
    if (node.opset < 10) {
      for (const char* name : {"starts", "ends", "axes"}) {
        RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kInts));
      }
      if (node.FindAttribute("starts") == nullptr || node.FindAttribute("ends") == nullptr) {
        return absl::InvalidArgumentError("attributes 'starts' and 'ends' are required");
      }
    }
    return absl::OkStatus();
  }
  bool IsHostInput(const Node& node, size_t input_index) const override {
    return node.opset >= 10 && input_index >= 1;
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* in, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(SliceArgs args,
                     GetSliceArgs(ctx.node, [&ctx](int i) { return ctx.input(i); }));
    ASSIGN_OR_RETURN(StridedCopy copy, PlanSlice(in->shape, args));
    TensorDesc& out = ctx.outputs[0];
    out.dtype = in->dtype;
    out.shape = copy.shape;
    if (ShouldFold(ctx, out.num_elements())) {
      HostTensor t = ZeroTensor(out.dtype, out.shape);
      copy.RunOnHost(*in->value, &t);
      out.value = Share(std::move(t));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(SliceArgs args,
                     GetSliceArgs(ctx.node(), [&ctx](int i) { return ctx.input(i); }));
    ASSIGN_OR_RETURN(StridedCopy copy, PlanSlice(ctx.input(0)->shape, args));
    return CreateStridedCopyKernel(ctx, ctx.input(0)->dtype, {std::move(copy)});
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Slice", 1, 27, SliceOp);

}  // namespace vkserve
