// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/image/block_rearrange.h"

#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

struct Rearrangement {
  StridedCopy copy;
  std::vector<int64_t> out_shape;
};

absl::StatusOr<Rearrangement> BlockRearrangePlan(bool depth_to_space, const Node& node,
                                                 const std::vector<int64_t>& x) {
  if (x.size() != 4)
    return absl::InvalidArgumentError(absl::StrCat(node.op_type, " needs [N, C, H, W]"));
  const int64_t b = node.GetInt("blocksize", 0);
  if (b <= 0) return absl::InvalidArgumentError("blocksize must be positive");
  const int64_t n = x[0], c = x[1], h = x[2], w = x[3];
  Rearrangement r;
  if (depth_to_space) {
    if (c % (b * b) != 0) return absl::InvalidArgumentError("C must be a multiple of blocksize^2");
    const int64_t oc = c / (b * b);
    if (node.GetString("mode", "DCR") == "CRD") {
      r.copy = TransposeCopy({n, oc, b, b, h, w}, {0, 1, 4, 2, 5, 3});
    } else {
      r.copy = TransposeCopy({n, b, b, oc, h, w}, {0, 3, 4, 1, 5, 2});
    }
    r.out_shape = {n, oc, h * b, w * b};
  } else {
    if (h % b != 0 || w % b != 0)
      return absl::InvalidArgumentError("H and W must be multiples of blocksize");
    r.copy = TransposeCopy({n, c, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4});
    r.out_shape = {n, c * b * b, h / b, w / b};
  }
  return r;
}

}  // namespace

absl::Status BlockRearrangeOp::Validate(const Node& node) const {
  RETURN_IF_ERROR(CheckAttributeType(node, "blocksize", Attribute::Type::kInt));
  const std::string mode = node.GetString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") return absl::InvalidArgumentError("mode must be DCR or CRD");
  return absl::OkStatus();
}

absl::Status BlockRearrangeOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
  ASSIGN_OR_RETURN(Rearrangement r, BlockRearrangePlan(depth_to_space_, ctx.node, x->shape));
  TensorDesc& out = ctx.outputs[0];
  out.dtype = x->dtype;
  out.shape = r.out_shape;
  if (ShouldFold(ctx, out.num_elements()) && IsFoldableType(x->dtype)) {
    HostTensor t = ZeroTensor(out.dtype, out.shape);
    r.copy.RunOnHost(*x->value, &t);
    out.value = Share(std::move(t));
    return absl::OkStatus();
  }
  return CheckMovableType(x->dtype);
}

absl::StatusOr<std::unique_ptr<Kernel>> BlockRearrangeOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& x = *ctx.input(0);
  ASSIGN_OR_RETURN(Rearrangement r, BlockRearrangePlan(depth_to_space_, ctx.node(), x.shape));
  return CreateStridedCopyKernel(ctx, x.dtype, {std::move(r.copy)});
}

}  // namespace vkserve
