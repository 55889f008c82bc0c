// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GatherElements (opsets 11-27): out[c] = data[c with c[axis] = indices[c]],
// for every position c of `indices`, which has data's rank and at most its
// dims. Negative indices count from the end. BERT exports read their
// position ids with it, from host-known tensors, where it folds; otherwise
// shaders/ops/gather_elements.comp picks one element per invocation, any
// dtype of 1, 2, 4 or 8 bytes, ranks up to 8. As in Gather, out-of-range
// indices are an error at load whenever the indices are host-known (folded or
// not), and clamped into range on the GPU, where nothing is read back
// mid-run (ONNX leaves them undefined).
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kGatherElementsLocalSize = 256;
constexpr size_t kGatherElementsMaxRank = 8;  // 16 + 2 * 8 * 4 = 80 bytes of push constants

absl::StatusOr<int64_t> AxisOf(const Node& node, const TensorDesc& data,
                               const TensorDesc& indices) {
  const int64_t rank = static_cast<int64_t>(data.shape.size());
  if (rank == 0) return absl::InvalidArgumentError("data must have rank >= 1");
  RETURN_IF_ERROR(CheckDataType(indices.dtype, {DataType::kInt32, DataType::kInt64}, "indices"));
  if (indices.shape.size() != data.shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("indices ", ShapeString(indices.shape),
                                                   " and data ", ShapeString(data.shape),
                                                   " differ in rank"));
  }
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(node.GetInt("axis", 0), rank));
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis && indices.shape[d] > data.shape[d]) {
      return absl::InvalidArgumentError(absl::StrCat("indices ", ShapeString(indices.shape),
                                                     " exceed data ", ShapeString(data.shape),
                                                     " in dim ", d));
    }
  }
  if (data.shape[axis] == 0 && indices.num_elements() > 0) {
    return absl::InvalidArgumentError("cannot gather from an empty axis");
  }
  return axis;
}

// INVALID_ARGUMENT naming the first index of host-known `indices` outside
// [-axis_dim, axis_dim).
absl::Status CheckIndices(const HostTensor& indices, int64_t axis_dim) {
  const int64_t n = indices.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t idx = ElementAsInt(indices, i);
    if (idx < -axis_dim || idx >= axis_dim) {
      return absl::InvalidArgumentError(
          absl::StrCat("index ", idx, " is out of range for axis dim ", axis_dim));
    }
  }
  return absl::OkStatus();
}

class GatherElementsOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    return CheckAttributeType(node, "axis", Attribute::Type::kInt);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* data, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* indices, RequireInput(ctx, 1));
    ASSIGN_OR_RETURN(const int64_t axis, AxisOf(ctx.node, *data, *indices));
    TensorDesc& out = ctx.outputs[0];
    out.dtype = data->dtype;
    out.shape = indices->shape;
    const int64_t axis_dim = data->shape[axis];
    // Constant indices with dynamic data (or too large to fold) are still
    // checked here, at load: the GPU would only clamp them.
    if (indices->value != nullptr) RETURN_IF_ERROR(CheckIndices(*indices->value, axis_dim));
    if (!ShouldFold(ctx, out.num_elements())) return absl::OkStatus();
    HostTensor t = ZeroTensor(out.dtype, out.shape);
    const std::vector<int64_t> data_strides = Strides(data->shape);
    const size_t rank = out.shape.size();
    std::vector<int64_t> coord(rank, 0);
    for (int64_t i = 0; i < out.num_elements(); ++i) {
      int64_t idx = ElementAsInt(*indices->value, i);  // in range: checked above
      if (idx < 0) idx += axis_dim;
      int64_t src = 0;
      for (size_t d = 0; d < rank; ++d) {
        src += (static_cast<int64_t>(d) == axis ? idx : coord[d]) * data_strides[d];
      }
      CopyElement(*data->value, src, &t, i);
      for (size_t d = rank; d-- > 0;) {  // next output coordinate, row-major
        if (++coord[d] < out.shape[d]) break;
        coord[d] = 0;
      }
    }
    out.value = Share(std::move(t));
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& data = *ctx.input(0);
    const TensorDesc& indices = *ctx.input(1);
    RETURN_IF_ERROR(CheckMovableType(data.dtype));
    ASSIGN_OR_RETURN(const int64_t axis, AxisOf(ctx.node(), data, indices));
    if (data.shape.size() > kGatherElementsMaxRank) {
      return absl::UnimplementedError(
          absl::StrCat("rank ", data.shape.size(), " (at most ", kGatherElementsMaxRank, ")"));
    }
    const int64_t count = indices.num_elements();
    if (count > INT32_MAX || data.num_elements() > INT32_MAX) {
      return absl::UnimplementedError("GatherElements: tensor too large for 32-bit indexing");
    }
    if (count == 0) return MakeEmptyKernel();
    // gather_elements.comp's push block: count, rank, axis, axis dim, then
    // the output shape and data strides for kGatherElementsMaxRank dims each.
    const std::vector<int64_t> strides = Strides(data.shape);
    const size_t rank = data.shape.size();
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(count))
        .U32(static_cast<uint32_t>(rank))
        .U32(static_cast<uint32_t>(axis))
        .U32(static_cast<uint32_t>(data.shape[axis]));
    for (size_t d = 0; d < kGatherElementsMaxRank; ++d)
      step.push.U32(d < rank ? static_cast<uint32_t>(indices.shape[d]) : 0);
    for (size_t d = 0; d < kGatherElementsMaxRank; ++d)
      step.push.U32(d < rank ? static_cast<uint32_t>(strides[d]) : 0);
    const uint32_t elem = static_cast<uint32_t>(DataTypeSize(data.dtype));
    const uint32_t index64 = indices.dtype == DataType::kInt64 ? 1 : 0;
    ASSIGN_OR_RETURN(step.pipeline,
                     ctx.GetPipeline("ops/gather_elements", 3, step.push.size(),
                                     {kGatherElementsLocalSize, 1, 1}, {elem, index64}));
    step.bindings = {BufferRef::Input(0), BufferRef::Input(1), BufferRef::Output(0)};
    // Narrow elements are written a word at a time: one invocation per word.
    const uint64_t per_word = elem < 4 ? 4 / elem : 1;
    step.groups = GroupsFor((static_cast<uint64_t>(count) + per_word - 1) / per_word,
                            kGatherElementsLocalSize, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "GatherElements", 11, 27, GatherElementsOp);

}  // namespace vkserve
