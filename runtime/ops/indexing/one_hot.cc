// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// OneHot (opsets 9-27): indices (fp32, int32 or int64; negative ones count
// from depth) expanded along a new `axis` of size depth (input 1,
// host-known) to values[1] at the index and values[0] elsewhere; values of 4
// or 8 bytes (shaders/ops/one_hot.comp).
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kOneHotLocal = 256;

struct OneHotLayout {
  int64_t depth = 0, inner = 1;
  std::vector<int64_t> out_shape;
};

absl::StatusOr<OneHotLayout> OneHotLayoutOf(const Node& node, const std::vector<int64_t>& indices,
                                            const TensorDesc* depth) {
  if (depth == nullptr || depth->value == nullptr) {
    return absl::UnimplementedError(
        "OneHot's depth must be known at load time (a constant); vkserve never reads tensor "
        "data back in the middle of a run");
  }
  if (depth->value->num_elements() != 1)
    return absl::InvalidArgumentError("depth must hold one value");
  OneHotLayout l;
  l.depth = static_cast<int64_t>(ElementAsDouble(*depth->value, 0));
  if (l.depth <= 0) return absl::InvalidArgumentError("depth must be positive");
  const int64_t out_rank = static_cast<int64_t>(indices.size()) + 1;
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(node.GetInt("axis", -1), out_rank));
  l.out_shape = indices;
  l.out_shape.insert(l.out_shape.begin() + axis, l.depth);
  for (size_t d = static_cast<size_t>(axis); d < indices.size(); ++d) l.inner *= indices[d];
  return l;
}

class OneHotOp : public Op {
 public:
  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index == 1;
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* indices, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* values, RequireInput(ctx, 2));
    RETURN_IF_ERROR(CheckDataType(
        indices->dtype, {DataType::kFloat, DataType::kInt32, DataType::kInt64}, "indices"));
    if (values->num_elements() != 2)
      return absl::InvalidArgumentError("values must hold two elements");
    const size_t size = DataTypeSize(values->dtype);
    if (size != 4 && size != 8) {
      return absl::UnimplementedError(
          absl::StrCat("OneHot values of ", std::string(DataTypeName(values->dtype))));
    }
    ASSIGN_OR_RETURN(const OneHotLayout l, OneHotLayoutOf(ctx.node, indices->shape, ctx.input(1)));
    ctx.outputs[0].dtype = values->dtype;
    ctx.outputs[0].shape = l.out_shape;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& indices = *ctx.input(0);
    const TensorDesc& values = *ctx.input(2);
    ASSIGN_OR_RETURN(const OneHotLayout l, OneHotLayoutOf(ctx.node(), indices.shape, ctx.input(1)));
    const uint64_t n = static_cast<uint64_t>(NumElements(l.out_shape));
    if (n >= (uint64_t{1} << 31)) return absl::UnimplementedError("OneHot: output too large");
    if (n == 0) return MakeEmptyKernel();
    const uint32_t index_kind = indices.dtype == DataType::kFloat   ? 0u
                                : indices.dtype == DataType::kInt32 ? 1u
                                                                    : 2u;
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(n))
        .U32(static_cast<uint32_t>(l.depth))
        .U32(static_cast<uint32_t>(l.inner));
    ASSIGN_OR_RETURN(
        step.pipeline,
        ctx.GetPipeline("ops/one_hot", 3, step.push.size(), {kOneHotLocal, 1, 1},
                        {static_cast<uint32_t>(DataTypeSize(values.dtype) / 4), index_kind}));
    step.bindings = {BufferRef::Input(0), BufferRef::Input(2), BufferRef::Output(0)};
    step.groups = GroupsFor(n, kOneHotLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "OneHot", 9, 27, OneHotOp);

}  // namespace vkserve
