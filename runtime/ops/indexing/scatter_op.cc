// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/indexing/scatter_op.h"

#include "absl/strings/str_cat.h"
#include "runtime/kernels/composite_kernel.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kScatterLocal = 64;
constexpr size_t kScatterMaxTuple = 8, kMaxRank = 6;

absl::StatusOr<uint32_t> ScatterReductionOf(const Node& node) {
  const std::string r = node.GetString("reduction", "none");
  if (r == "none") return 0u;
  if (r == "add") return 1u;
  if (r == "mul") return 2u;
  if (r == "max") return 3u;
  if (r == "min") return 4u;
  return absl::InvalidArgumentError(absl::StrCat("unknown reduction \"", r.substr(0, 32), "\""));
}

// Checks the shapes; fills the push constants of the update step and the
// number of its invocations.
absl::Status UpdatePush(bool nd, const Node& node, const std::vector<int64_t>& data,
                        const std::vector<int64_t>& idx, const std::vector<int64_t>& upd,
                        PushConstants* push, uint64_t* invocations) {
  const std::vector<int64_t> strides = Strides(data);
  if (nd) {
    if (idx.empty()) return absl::InvalidArgumentError("indices must have rank 1 or more");
    const size_t k = static_cast<size_t>(idx.back());
    if (k < 1 || k > data.size() || k > kScatterMaxTuple)
      return absl::InvalidArgumentError("bad index tuple length");
    std::vector<int64_t> want(idx.begin(), idx.end() - 1);
    want.insert(want.end(), data.begin() + k, data.end());
    if (upd != want) {
      return absl::InvalidArgumentError(
          absl::StrCat("updates ", ShapeString(upd), " must be ", ShapeString(want)));
    }
    int64_t slice = 1, rows = 1;
    for (size_t d = k; d < data.size(); ++d) slice *= data[d];
    for (size_t d = 0; d + 1 < idx.size(); ++d) rows *= idx[d];
    if (push != nullptr) {
      push->U32(static_cast<uint32_t>(slice))
          .U32(static_cast<uint32_t>(rows))
          .U32(static_cast<uint32_t>(k));
      for (size_t j = 0; j < kScatterMaxTuple; ++j)
        push->U32(j < k ? static_cast<uint32_t>(data[j]) : 1);
      for (size_t j = 0; j < kScatterMaxTuple; ++j)
        push->U32(j < k ? static_cast<uint32_t>(strides[j]) : 0);
    }
    *invocations = static_cast<uint64_t>(slice);
    return absl::OkStatus();
  }
  const int64_t rank = static_cast<int64_t>(data.size());
  if (idx.size() != data.size() || upd != idx || data.size() > kMaxRank || rank == 0) {
    return absl::InvalidArgumentError(
        "indices and updates must share a shape of data's rank (at most 6)");
  }
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(node.GetInt("axis", 0), rank));
  int64_t lines = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) lines *= idx[d];
  }
  if (push != nullptr) {
    push->U32(static_cast<uint32_t>(lines))
        .U32(static_cast<uint32_t>(rank))
        .U32(static_cast<uint32_t>(axis))
        .U32(static_cast<uint32_t>(data[axis]));
    for (size_t d = 0; d < kMaxRank; ++d)
      push->U32(d < idx.size() ? static_cast<uint32_t>(idx[d]) : 1);
    for (size_t d = 0; d < kMaxRank; ++d)
      push->U32(d < strides.size() ? static_cast<uint32_t>(strides[d]) : 0);
  }
  *invocations = static_cast<uint64_t>(idx[axis] == 0 ? 0 : lines);
  return absl::OkStatus();
}

}  // namespace

absl::Status ScatterOp::Validate(const Node& node) const {
  RETURN_IF_ERROR(CheckAttributeType(node, "axis", Attribute::Type::kInt));
  return ScatterReductionOf(node).status();
}

absl::Status ScatterOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* data, RequireInput(ctx, 0));
  ASSIGN_OR_RETURN(const TensorDesc* idx, RequireInput(ctx, 1));
  ASSIGN_OR_RETURN(const TensorDesc* upd, RequireInput(ctx, 2));
  RETURN_IF_ERROR(CheckDataType(idx->dtype, {DataType::kInt64}, "indices"));
  if (upd->dtype != data->dtype)
    return absl::InvalidArgumentError("updates and data differ in type");
  uint64_t invocations = 0;
  RETURN_IF_ERROR(
      UpdatePush(nd_, ctx.node, data->shape, idx->shape, upd->shape, nullptr, &invocations));
  ASSIGN_OR_RETURN(const uint32_t reduction, ScatterReductionOf(ctx.node));
  const size_t size = DataTypeSize(data->dtype);
  if (reduction != 0 ? data->dtype != DataType::kFloat : (size != 4 && size != 8)) {
    return absl::UnimplementedError(
        absl::StrCat(ctx.node.op_type, " of ", std::string(DataTypeName(data->dtype)),
                     reduction != 0 ? " with a reduction (fp32 only)" : ""));
  }
  ctx.outputs[0].dtype = data->dtype;
  ctx.outputs[0].shape = data->shape;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> ScatterOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& data = *ctx.input(0);
  if (data.num_elements() >= (int64_t{1} << 31))
    return absl::UnimplementedError("Scatter: data too large");
  DispatchStep step;
  uint64_t invocations = 0;
  RETURN_IF_ERROR(UpdatePush(nd_, ctx.node(), data.shape, ctx.input(1)->shape, ctx.input(2)->shape,
                             &step.push, &invocations));
  ASSIGN_OR_RETURN(const uint32_t reduction, ScatterReductionOf(ctx.node()));
  std::vector<CompositeStep> steps;
  ASSIGN_OR_RETURN(std::unique_ptr<Kernel> copy,
                   CreateStridedCopyKernel(ctx, data.dtype, {ContiguousCopy(data.num_elements())}));
  steps.push_back(
      {std::move(copy), {{NodeBuffer::Source::kInput, 0}}, {{NodeBuffer::Source::kOutput, 0}}});
  if (invocations > 0) {
    ASSIGN_OR_RETURN(
        step.pipeline,
        ctx.GetPipeline(nd_ ? "ops/scatter_nd" : "ops/scatter_elements", 4, step.push.size(),
                        {kScatterLocal, 1, 1},
                        {static_cast<uint32_t>(DataTypeSize(data.dtype) / 4), reduction}));
    step.bindings = {BufferRef::Input(0), BufferRef::Input(1), BufferRef::Input(2),
                     BufferRef{BufferRef::Source::kOutput, 0, gpu::Access::kReadWrite}};
    step.groups = GroupsFor(invocations, kScatterLocal, ctx.device());
    steps.push_back({MakeDispatchKernel(std::move(step)),
                     {{NodeBuffer::Source::kInput, 0},
                      {NodeBuffer::Source::kInput, 1},
                      {NodeBuffer::Source::kInput, 2}},
                     {{NodeBuffer::Source::kOutput, 0}}});
  }
  return std::make_unique<CompositeKernel>(std::move(steps));
}

}  // namespace vkserve
