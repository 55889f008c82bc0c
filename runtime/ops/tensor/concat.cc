// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Concat (opsets 1-27): joins its inputs along `axis` (default 1 before
// opset 4; negative from opset 11). Empty inputs are skipped. On the GPU one
// strided copy per input writes its slice of the output; with a single
// non-empty input the node is an alias of it; folded when every input is
// host-known and the output small (shape vectors).
#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

struct ConcatPlan {
  DataType dtype = DataType::kUndefined;
  std::vector<int64_t> shape;
  std::vector<StridedCopy> copies;  // one per non-empty input
};

template <typename Inputs>
absl::StatusOr<ConcatPlan> PlanConcat(const Node& node, size_t num_inputs, Inputs input) {
  ConcatPlan plan;
  const TensorDesc* first = nullptr;
  for (size_t i = 0; i < num_inputs && first == nullptr; ++i) first = input(i);
  if (first == nullptr) return absl::InvalidArgumentError("Concat needs at least one input");
  const int64_t rank = static_cast<int64_t>(first->shape.size());
  if (rank == 0) return absl::InvalidArgumentError("Concat inputs must have rank >= 1");
  int64_t axis = node.GetInt("axis", 1);
  if (node.opset < 11 && axis < 0) {
    return absl::InvalidArgumentError("negative axis needs opset 11");
  }
  ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, rank));
  plan.dtype = first->dtype;
  plan.shape = first->shape;
  plan.shape[axis] = 0;
  for (size_t i = 0; i < num_inputs; ++i) {
    const TensorDesc* in = input(i);
    if (in == nullptr) continue;
    if (in->dtype != plan.dtype || static_cast<int64_t>(in->shape.size()) != rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", i, " (", in->ToString(), ") does not match input 0 (", first->ToString(), ")"));
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && in->shape[d] != first->shape[d]) {
        return absl::InvalidArgumentError(
            absl::StrCat("input ", i, " shape ", ShapeString(in->shape), " does not match ",
                         ShapeString(first->shape), " off axis ", axis));
      }
    }
    plan.shape[axis] += in->shape[axis];
  }
  const std::vector<int64_t> out_strides = Strides(plan.shape);
  int64_t offset = 0;
  for (size_t i = 0; i < num_inputs; ++i) {
    const TensorDesc* in = input(i);
    if (in == nullptr) continue;
    StridedCopy c;
    c.src_index = static_cast<int>(i);
    c.shape = in->shape;
    c.src_strides = Strides(in->shape);
    c.dst_strides = out_strides;
    c.dst_base = offset * out_strides[axis];
    offset += in->shape[axis];
    if (c.num_elements() > 0) plan.copies.push_back(std::move(c));
  }
  return plan;
}

class ConcatOp : public Op {
 public:
  // Of one input, it passes that input through.
  const OpTraits& traits() const override {
    static const OpTraits kTraits{
        .float16 = Float16Use::kMoves,
        .passes_through = [](const Node& node) { return node.inputs.size() == 1; },
    };
    return kTraits;
  }
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "axis", Attribute::Type::kInt));
    if (node.opset >= 4 && node.FindAttribute("axis") == nullptr) {
      return absl::InvalidArgumentError("attribute 'axis' is required");
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(ConcatPlan plan, PlanConcat(ctx.node, ctx.inputs.size(),
                                                 [&ctx](size_t i) { return ctx.input(i); }));
    TensorDesc& out = ctx.outputs[0];
    out.dtype = plan.dtype;
    out.shape = plan.shape;
    if (ShouldFold(ctx, out.num_elements())) {
      HostTensor t = ZeroTensor(out.dtype, out.shape);
      for (const StridedCopy& c : plan.copies) c.RunOnHost(*ctx.input(c.src_index)->value, &t);
      out.value = Share(std::move(t));
    }
    return absl::OkStatus();
  }

  // With one non-empty input (a decoder's empty past joined to its first
  // keys), the output is that input's bytes: no copy.
  int AliasedInput(const InferContext& ctx) const override {
    int only = -1;
    for (size_t i = 0; i < ctx.inputs.size(); ++i) {
      const TensorDesc* in = ctx.input(i);
      if (in == nullptr || in->num_elements() == 0) continue;
      if (only >= 0) return -1;
      only = static_cast<int>(i);
    }
    return only >= 0 && ctx.input(only)->shape == ctx.outputs[0].shape ? only : -1;
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(ConcatPlan plan, PlanConcat(ctx.node(), ctx.num_inputs(),
                                                 [&ctx](size_t i) { return ctx.input(i); }));
    return CreateStridedCopyKernel(ctx, plan.dtype, std::move(plan.copies));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Concat", 1, 27, ConcatOp);

}  // namespace vkserve
