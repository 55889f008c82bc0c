// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GatherND (opsets 11-27, batch_dims from 12): slices of data selected by
// int64 index tuples, elements of any type of 1, 2, 4, 8 or 16 bytes (bool,
// every integer and float type; shaders/ops/gather_nd.comp).
// Out-of-range indices are clamped (ONNX leaves them undefined; vkserve never
// reads out of bounds).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kGatherNdLocal = 256;
constexpr int64_t kGatherNdMaxTuple = 8;

struct GatherNdPlan {
  int64_t k = 0, slice = 1, rows_per_batch = 1, batch_stride = 0;
  std::vector<int64_t> dims, strides, out_shape;
};

absl::StatusOr<GatherNdPlan> GatherNdPlanOf(const Node& node, const std::vector<int64_t>& data,
                                            const std::vector<int64_t>& idx) {
  const int64_t b = node.GetInt("batch_dims", 0);
  const int64_t r = static_cast<int64_t>(data.size()), q = static_cast<int64_t>(idx.size());
  if (q < 1 || b < 0 || b >= q || b >= r)
    return absl::InvalidArgumentError("bad batch_dims or index rank");
  GatherNdPlan p;
  p.k = idx.back();
  if (p.k < 1 || b + p.k > r || p.k > kGatherNdMaxTuple) {
    return absl::InvalidArgumentError(
        absl::StrCat("index tuples of ", p.k, " for data of rank ", r));
  }
  for (int64_t d = 0; d < b; ++d) {
    if (data[d] != idx[d])
      return absl::InvalidArgumentError("batch dims of data and indices differ");
  }
  const std::vector<int64_t> strides = Strides(data);
  for (int64_t j = 0; j < p.k; ++j) {
    p.dims.push_back(data[b + j]);
    p.strides.push_back(strides[b + j]);
  }
  for (int64_t d = b + p.k; d < r; ++d) p.slice *= data[d];
  for (int64_t d = b; d < q - 1; ++d) p.rows_per_batch *= idx[d];
  p.batch_stride = b == 0 ? 0 : strides[b - 1];
  p.out_shape.assign(idx.begin(), idx.end() - 1);
  p.out_shape.insert(p.out_shape.end(), data.begin() + b + p.k, data.end());
  return p;
}

class GatherNdOp : public Op {
 public:
  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* data, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* idx, RequireInput(ctx, 1));
    RETURN_IF_ERROR(CheckDataType(idx->dtype, {DataType::kInt64}, "indices"));
    ASSIGN_OR_RETURN(const GatherNdPlan p, GatherNdPlanOf(ctx.node, data->shape, idx->shape));
    const size_t size = DataTypeSize(data->dtype);
    if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16) {
      return absl::UnimplementedError(
          absl::StrCat("GatherND of ", std::string(DataTypeName(data->dtype))));
    }
    ctx.outputs[0].dtype = data->dtype;
    ctx.outputs[0].shape = p.out_shape;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& data = *ctx.input(0);
    ASSIGN_OR_RETURN(const GatherNdPlan p,
                     GatherNdPlanOf(ctx.node(), data.shape, ctx.input(1)->shape));
    const uint64_t n = static_cast<uint64_t>(NumElements(p.out_shape));
    if (n == 0) return MakeEmptyKernel();
    const uint32_t elem_bytes = static_cast<uint32_t>(DataTypeSize(data.dtype));
    const uint64_t words = std::max<uint64_t>(1, elem_bytes / 4);
    if (n * words >= (uint64_t{1} << 31) || data.num_elements() * words >= (int64_t{1} << 31)) {
      return absl::UnimplementedError("GatherND: tensors too large");
    }
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(n))
        .U32(static_cast<uint32_t>(p.slice))
        .U32(static_cast<uint32_t>(p.k))
        .U32(static_cast<uint32_t>(p.rows_per_batch))
        .U32(static_cast<uint32_t>(p.batch_stride));
    for (int64_t j = 0; j < kGatherNdMaxTuple; ++j)
      step.push.U32(j < p.k ? static_cast<uint32_t>(p.dims[j]) : 1);
    for (int64_t j = 0; j < kGatherNdMaxTuple; ++j)
      step.push.U32(j < p.k ? static_cast<uint32_t>(p.strides[j]) : 0);
    ASSIGN_OR_RETURN(step.pipeline, ctx.GetPipeline("ops/gather_nd", 3, step.push.size(),
                                                    {kGatherNdLocal, 1, 1}, {elem_bytes}));
    step.bindings = {BufferRef::Input(0), BufferRef::Input(1), BufferRef::Output(0)};
    // Narrow elements: one invocation per output word.
    const uint64_t invocations = elem_bytes >= 4 ? n : (n * elem_bytes + 3) / 4;
    step.groups = GroupsFor(invocations, kGatherNdLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "GatherND", 11, 27, GatherNdOp);

}  // namespace vkserve
