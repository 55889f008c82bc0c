// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/reduction/arg_reduce_op.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kArgReduceLocal = 64;

struct ArgReduceRows {
  int64_t outer = 1, axis = 1, inner = 1;
  std::vector<int64_t> out_shape;
};

absl::StatusOr<ArgReduceRows> ArgReduceRowsOf(const Node& node, const std::vector<int64_t>& shape) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (rank == 0) return absl::InvalidArgumentError(absl::StrCat(node.op_type, " of a scalar"));
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(node.GetInt("axis", 0), rank));
  const bool keep = node.GetInt("keepdims", 1) != 0;
  ArgReduceRows r;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis) r.outer *= shape[d];
    if (d > axis) r.inner *= shape[d];
    if (d != axis) {
      r.out_shape.push_back(shape[d]);
    } else if (keep) {
      r.out_shape.push_back(1);
    }
  }
  r.axis = shape[axis];
  if (r.axis == 0)
    return absl::InvalidArgumentError(absl::StrCat(node.op_type, " over an empty axis"));
  return r;
}

bool SelectLast(const Node& node) {
  return node.opset >= 12 && node.GetInt("select_last_index", 0) != 0;
}

}  // namespace

absl::Status ArgReduceOp::Validate(const Node& node) const {
  for (const char* name : {"axis", "keepdims", "select_last_index"}) {
    RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kInt));
  }
  return absl::OkStatus();
}

absl::Status ArgReduceOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
  ASSIGN_OR_RETURN(const ArgReduceRows r, ArgReduceRowsOf(ctx.node, x->shape));
  TensorDesc& out = ctx.outputs[0];
  out.dtype = DataType::kInt64;
  out.shape = r.out_shape;
  if (ShouldFold(ctx, out.num_elements()) && IsFoldableType(x->dtype) &&
      x->dtype != DataType::kBool) {
    const bool last = SelectLast(ctx.node);
    std::vector<int64_t> index(static_cast<size_t>(r.outer * r.inner));
    for (int64_t row = 0; row < r.outer * r.inner; ++row) {
      const int64_t base = (row / r.inner) * r.axis * r.inner + row % r.inner;
      int64_t best_k = 0;
      double best = ElementAsDouble(*x->value, base);
      for (int64_t k = 1; k < r.axis; ++k) {
        const double v = ElementAsDouble(*x->value, base + k * r.inner);
        const bool better = max_ ? (last ? v >= best : v > best) : (last ? v <= best : v < best);
        if (better || (std::isnan(best) && !std::isnan(v))) {
          best = v;
          best_k = k;
        }
      }
      index[static_cast<size_t>(row)] = best_k;
    }
    out.value = Share(HostTensor::FromInts(index, out.shape));
    return absl::OkStatus();
  }
  return CheckDataType(x->dtype, {DataType::kFloat}, "input 0");
}

absl::StatusOr<std::unique_ptr<Kernel>> ArgReduceOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& x = *ctx.input(0);
  const uint64_t n = static_cast<uint64_t>(x.num_elements());
  if (n >= (uint64_t{1} << 32)) {
    return absl::UnimplementedError(absl::StrCat("tensors of 2^32 or more elements (", n, ")"));
  }
  ASSIGN_OR_RETURN(const ArgReduceRows r, ArgReduceRowsOf(ctx.node(), x.shape));
  const uint64_t rows = static_cast<uint64_t>(r.outer * r.inner);
  if (rows == 0) return MakeEmptyKernel();
  DispatchStep step;
  step.push.U32(static_cast<uint32_t>(rows))
      .U32(static_cast<uint32_t>(r.axis))
      .U32(static_cast<uint32_t>(r.inner));
  ASSIGN_OR_RETURN(step.pipeline,
                   ctx.GetPipeline("ops/arg_reduce", 2, step.push.size(), {kArgReduceLocal, 1, 1},
                                   {max_ ? 1u : 0u, SelectLast(ctx.node()) ? 1u : 0u}));
  step.bindings = {BufferRef::Input(0), BufferRef::Output(0)};
  step.groups = GroupsFor(rows, kArgReduceLocal, ctx.device());
  return MakeDispatchKernel(std::move(step));
}

}  // namespace vkserve
