// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Tile (opsets 6-27): the input repeated `repeats` (input 1, host-known)
// times along each dim, any element type, as one strided copy over
// [repeat_0, dim_0, repeat_1, dim_1, ...] that reads with stride 0 across the
// repeats (runtime/kernels/strided_copy.h); folded on the host when small.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

absl::StatusOr<StridedCopy> TileCopy(const std::vector<int64_t>& shape,
                                     const HostTensor& repeats_value,
                                     std::vector<int64_t>* out_shape) {
  ASSIGN_OR_RETURN(const std::vector<int64_t> repeats, HostInts(repeats_value, "repeats"));
  if (repeats.size() != shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("repeats has ", repeats.size(),
                                                   " entries for a rank-", shape.size(), " input"));
  }
  out_shape->clear();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (repeats[d] < 0) return absl::InvalidArgumentError("repeats must not be negative");
    out_shape->push_back(shape[d] * repeats[d]);
  }
  const std::vector<int64_t> in_strides = Strides(shape);
  const std::vector<int64_t> out_strides = Strides(*out_shape);
  StridedCopy c;
  for (size_t d = 0; d < shape.size(); ++d) {
    c.shape.insert(c.shape.end(), {repeats[d], shape[d]});
    c.src_strides.insert(c.src_strides.end(), {0, in_strides[d]});
    c.dst_strides.insert(c.dst_strides.end(), {shape[d] * out_strides[d], out_strides[d]});
  }
  c.Simplify();
  return c;
}

class TileOp : public Op {
 public:
  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index == 1;
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const HostTensor* repeats, RequireHostInput(ctx, 1));
    TensorDesc& out = ctx.outputs[0];
    out.dtype = x->dtype;
    ASSIGN_OR_RETURN(StridedCopy copy, TileCopy(x->shape, *repeats, &out.shape));
    if (ShouldFold(ctx, out.num_elements()) && IsFoldableType(x->dtype)) {
      HostTensor t = ZeroTensor(out.dtype, out.shape);
      copy.RunOnHost(*x->value, &t);
      out.value = Share(std::move(t));
      return absl::OkStatus();
    }
    return CheckMovableType(x->dtype);
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    std::vector<int64_t> out_shape;
    ASSIGN_OR_RETURN(StridedCopy copy,
                     TileCopy(ctx.input(0)->shape, *ctx.input(1)->value, &out_shape));
    return CreateStridedCopyKernel(ctx, ctx.input(0)->dtype, {std::move(copy)});
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Tile", 6, 27, TileOp);

}  // namespace vkserve
