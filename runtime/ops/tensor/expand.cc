// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Expand (opsets 8-27): broadcasts the input to the host-known `shape`
// (bidirectionally: the output shape is the numpy broadcast of the two).
// A strided copy with zero strides on broadcast dims; folded when the input
// is host-known and the output small.
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

absl::StatusOr<std::vector<int64_t>> ExpandedShape(const TensorDesc& in, const HostTensor& shape) {
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, HostInts(shape, "shape"));
  return BroadcastShapes(in.shape, dims);
}

class ExpandOp : public Op {
 public:
  const OpTraits& traits() const override {
    static const OpTraits kTraits{.float16 = Float16Use::kMoves};
    return kTraits;
  }
  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index == 1;
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* in, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const HostTensor* shape, RequireHostInput(ctx, 1));
    TensorDesc& out = ctx.outputs[0];
    out.dtype = in->dtype;
    ASSIGN_OR_RETURN(out.shape, ExpandedShape(*in, *shape));
    if (ShouldFold(ctx, out.num_elements())) {
      HostTensor t = ZeroTensor(out.dtype, out.shape);
      BroadcastCopy(in->shape, out.shape).RunOnHost(*in->value, &t);
      out.value = Share(std::move(t));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& in = *ctx.input(0);
    ASSIGN_OR_RETURN(std::vector<int64_t> shape, ExpandedShape(in, *ctx.input(1)->value));
    return CreateStridedCopyKernel(ctx, in.dtype, {BroadcastCopy(in.shape, shape)});
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Expand", 8, 27, ExpandOp);

}  // namespace vkserve
