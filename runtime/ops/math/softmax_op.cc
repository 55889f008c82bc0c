// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
#include "runtime/ops/math/softmax_op.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

// SoftmaxRows go one per invocation when they are short, or strided (inner > 1,
// where neighbouring invocations then read neighbouring addresses) and not
// too long; else one per workgroup.
constexpr int64_t kPerThreadShortAxis = 16;
constexpr int64_t kPerThreadMaxAxis = 1024;
constexpr uint32_t kPerThreadLocal = 64;

struct SoftmaxRows {
  int64_t outer = 1;
  int64_t axis = 1;
  int64_t inner = 1;
};

absl::StatusOr<SoftmaxRows> SoftmaxRowsOf(const Node& node, const std::vector<int64_t>& shape) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (rank == 0) return absl::InvalidArgumentError(absl::StrCat(node.op_type, " of a scalar"));
  const bool coerce = node.opset < 13;
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(node.GetInt("axis", coerce ? 1 : -1), rank));
  SoftmaxRows r;
  for (int64_t d = 0; d < axis; ++d) r.outer *= shape[d];
  r.axis = shape[axis];
  for (int64_t d = axis + 1; d < rank; ++d) (coerce ? r.axis : r.inner) *= shape[d];
  return r;
}

}  // namespace

absl::Status SoftmaxOp::Validate(const Node& node) const {
  return CheckAttributeType(node, "axis", Attribute::Type::kInt);
}

absl::Status SoftmaxOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
  RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat}, "input 0"));
  RETURN_IF_ERROR(SoftmaxRowsOf(ctx.node, x->shape).status());
  ctx.outputs[0].dtype = x->dtype;
  ctx.outputs[0].shape = x->shape;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> SoftmaxOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& x = *ctx.input(0);
  const uint64_t n = static_cast<uint64_t>(x.num_elements());
  if (n >= (uint64_t{1} << 32)) {
    return absl::UnimplementedError(absl::StrCat("tensors of 2^32 or more elements (", n, ")"));
  }
  if (n == 0) return MakeEmptyKernel();
  ASSIGN_OR_RETURN(const SoftmaxRows r, SoftmaxRowsOf(ctx.node(), x.shape));
  const uint64_t rows = static_cast<uint64_t>(r.outer * r.inner);
  // Hardmax's first-index tie-break is a sequential scan: always per row.
  const bool per_thread = kind_ == Kind::kHardmax || r.axis <= kPerThreadShortAxis ||
                          (r.inner > 1 && r.axis <= kPerThreadMaxAxis);
  uint32_t local = kPerThreadLocal;
  if (!per_thread) {
    // A power of two covering the row, from 32 to 256 invocations.
    const uint32_t max_local =
        std::min<uint32_t>(256, ctx.device().info().max_workgroup_invocations);
    local = 32;
    while (local < r.axis && local * 2 <= max_local) local *= 2;
  }
  DispatchStep step;
  step.push.U32(static_cast<uint32_t>(rows))
      .U32(static_cast<uint32_t>(r.axis))
      .U32(static_cast<uint32_t>(r.inner));
  ASSIGN_OR_RETURN(step.pipeline,
                   ctx.GetPipeline("ops/softmax", 2, step.push.size(), {local, 1, 1},
                                   {per_thread ? 1u : 0u, static_cast<uint32_t>(kind_)}));
  step.bindings = {BufferRef::Input(0), BufferRef::Output(0)};
  step.groups =
      per_thread ? GroupsFor(rows, local, ctx.device()) : GroupsFor(rows, 1, ctx.device());
  return MakeDispatchKernel(std::move(step));
}
}  // namespace vkserve
