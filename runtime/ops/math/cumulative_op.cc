// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/math/cumulative_op.h"

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kCumulativeLocal = 64;

struct CumulativeRows {
  int64_t outer = 1, axis = 1, inner = 1;
};

absl::StatusOr<CumulativeRows> CumulativeRowsOf(const Node& node, const std::vector<int64_t>& shape,
                                                const TensorDesc* axis) {
  if (axis == nullptr)
    return absl::InvalidArgumentError(absl::StrCat(node.op_type, " needs input 1 (axis)"));
  if (axis->value == nullptr) {
    return absl::UnimplementedError(
        absl::StrCat(node.op_type,
                     "'s axis must be known at load time (a constant); vkserve never reads "
                     "tensor data back in the middle of a run"));
  }
  if (axis->value->num_elements() != 1) return absl::InvalidArgumentError("axis must be a scalar");
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (rank == 0) return absl::InvalidArgumentError(absl::StrCat(node.op_type, " of a scalar"));
  ASSIGN_OR_RETURN(const int64_t a, NormalizeAxis(ElementAsInt(*axis->value, 0), rank));
  CumulativeRows r;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < a) r.outer *= shape[d];
    if (d > a) r.inner *= shape[d];
  }
  r.axis = shape[a];
  return r;
}

}  // namespace

absl::Status CumulativeOp::Validate(const Node& node) const {
  RETURN_IF_ERROR(CheckAttributeType(node, "exclusive", Attribute::Type::kInt));
  return CheckAttributeType(node, "reverse", Attribute::Type::kInt);
}

absl::Status CumulativeOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
  ASSIGN_OR_RETURN(const CumulativeRows r, CumulativeRowsOf(ctx.node, x->shape, ctx.input(1)));
  ctx.outputs[0].dtype = x->dtype;
  ctx.outputs[0].shape = x->shape;
  if (x->value != nullptr && IsFoldableType(x->dtype) && x->dtype != DataType::kBool &&
      x->num_elements() <= ctx.max_fold_elements) {
    const bool exclusive = ctx.node.GetInt("exclusive", 0) != 0;
    const bool reverse = ctx.node.GetInt("reverse", 0) != 0;
    const bool integer = !IsFloatType(x->dtype);
    HostTensor y = *x->value;
    for (int64_t row = 0; row < r.outer * r.inner; ++row) {
      const int64_t base = (row / r.inner) * r.axis * r.inner + row % r.inner;
      double acc = product_ ? 1 : 0;
      int64_t iacc = product_ ? 1 : 0;
      for (int64_t step = 0; step < r.axis; ++step) {
        const int64_t at = base + (reverse ? r.axis - 1 - step : step) * r.inner;
        const double v = ElementAsDouble(*x->value, at);
        const int64_t iv = integer ? ElementAsInt(*x->value, at) : 0;
        if (exclusive)
          integer ? SetElementFromInt(&y, at, iacc) : SetElementFromDouble(&y, at, acc);
        acc = product_ ? acc * v : acc + v;
        iacc = product_ ? iacc * iv : iacc + iv;
        if (!exclusive)
          integer ? SetElementFromInt(&y, at, iacc) : SetElementFromDouble(&y, at, acc);
      }
    }
    ctx.outputs[0].value = Share(std::move(y));
    return absl::OkStatus();
  }
  return CheckDataType(
      x->dtype,
      {DataType::kFloat, DataType::kInt32, DataType::kUint32, DataType::kInt64, DataType::kUint64},
      "input 0");
}

absl::StatusOr<std::unique_ptr<Kernel>> CumulativeOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& x = *ctx.input(0);
  ASSIGN_OR_RETURN(const CumulativeRows r, CumulativeRowsOf(ctx.node(), x.shape, ctx.input(1)));
  const uint64_t n = static_cast<uint64_t>(x.num_elements());
  const uint32_t words = static_cast<uint32_t>(DataTypeSize(x.dtype) / 4);  // 1 or 2
  if (n * words >= (uint64_t{1} << 32)) {
    return absl::UnimplementedError(absl::StrCat("tensors of 2^32 or more elements (", n, ")"));
  }
  const uint64_t rows = static_cast<uint64_t>(r.outer * r.inner);
  if (n == 0) return MakeEmptyKernel();
  DispatchStep step;
  step.push.U32(static_cast<uint32_t>(rows))
      .U32(static_cast<uint32_t>(r.axis))
      .U32(static_cast<uint32_t>(r.inner));
  ASSIGN_OR_RETURN(
      step.pipeline,
      ctx.GetPipeline("ops/cumulative", 2, step.push.size(), {kCumulativeLocal, 1, 1},
                      {product_ ? 1u : 0u, ctx.node().GetInt("exclusive", 0) != 0 ? 1u : 0u,
                       ctx.node().GetInt("reverse", 0) != 0 ? 1u : 0u,
                       x.dtype == DataType::kFloat ? 0u : words}));
  step.bindings = {BufferRef::Input(0), BufferRef::Output(0)};
  step.groups = GroupsFor(rows, kCumulativeLocal, ctx.device());
  return MakeDispatchKernel(std::move(step));
}

}  // namespace vkserve
