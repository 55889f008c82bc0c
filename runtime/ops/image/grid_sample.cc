// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GridSample (opsets 16-27), fp32: X [N, C, spatial...] (2-D, or 3-D from
// opset 20) sampled at grid [N, out..., dims] with mode nearest / linear
// (bilinear at 16) / cubic (bicubic at 16; 2-D only), padding_mode zeros /
// border / reflection and align_corners (shaders/ops/grid_sample.comp).
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kGridSampleLocal = 256;

absl::StatusOr<uint32_t> ModeOf(const Node& node) {
  const std::string m = node.GetString("mode", node.opset < 20 ? "bilinear" : "linear");
  if (m == "nearest") return 0u;
  if (m == "linear" || m == "bilinear") return 1u;
  if (m == "cubic" || m == "bicubic") return 2u;
  return absl::InvalidArgumentError(absl::StrCat("unknown mode \"", m.substr(0, 32), "\""));
}

absl::StatusOr<uint32_t> PaddingOf(const Node& node) {
  const std::string m = node.GetString("padding_mode", "zeros");
  if (m == "zeros") return 0u;
  if (m == "border") return 1u;
  if (m == "reflection") return 2u;
  return absl::InvalidArgumentError(absl::StrCat("unknown padding_mode \"", m.substr(0, 32), "\""));
}

class GridSampleOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(ModeOf(node).status());
    RETURN_IF_ERROR(PaddingOf(node).status());
    return CheckAttributeType(node, "align_corners", Attribute::Type::kInt);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* grid, RequireInput(ctx, 1));
    RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat}, "X"));
    RETURN_IF_ERROR(CheckDataType(grid->dtype, {DataType::kFloat}, "grid"));
    const size_t dims = x->shape.size() < 2 ? 0 : x->shape.size() - 2;
    if ((dims != 2 && dims != 3) || grid->shape.size() != dims + 2 ||
        grid->shape[0] != x->shape[0] || grid->shape.back() != static_cast<int64_t>(dims)) {
      return absl::UnimplementedError(absl::StrCat("GridSample of X ", ShapeString(x->shape),
                                                   " at grid ", ShapeString(grid->shape),
                                                   " (2-D and 3-D)"));
    }
    ASSIGN_OR_RETURN(const uint32_t mode, ModeOf(ctx.node));
    if (mode == 2 && dims == 3) return absl::UnimplementedError("cubic GridSample in 3-D");
    std::vector<int64_t> out = {x->shape[0], x->shape[1]};
    out.insert(out.end(), grid->shape.begin() + 1, grid->shape.end() - 1);
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = out;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    const TensorDesc& out = ctx.output(0);
    const uint64_t n = static_cast<uint64_t>(out.num_elements());
    if (n == 0) return MakeEmptyKernel();
    if (n >= (uint64_t{1} << 31) || x.num_elements() >= (int64_t{1} << 31)) {
      return absl::UnimplementedError("GridSample: tensors too large");
    }
    const uint32_t dims = static_cast<uint32_t>(x.shape.size() - 2);
    ASSIGN_OR_RETURN(const uint32_t mode, ModeOf(ctx.node()));
    ASSIGN_OR_RETURN(const uint32_t padding, PaddingOf(ctx.node()));
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(n)).U32(static_cast<uint32_t>(x.shape[1]));
    for (uint32_t d = 0; d < 3; ++d)
      step.push.U32(d < dims ? static_cast<uint32_t>(x.shape[2 + d]) : 1);
    step.push.U32(static_cast<uint32_t>(n / static_cast<uint64_t>(x.shape[0] * x.shape[1])));
    ASSIGN_OR_RETURN(
        step.pipeline,
        ctx.GetPipeline(
            "ops/grid_sample", 3, step.push.size(), {kGridSampleLocal, 1, 1},
            {dims, mode, padding, ctx.node().GetInt("align_corners", 0) != 0 ? 1u : 0u}));
    step.bindings = {BufferRef::Input(0), BufferRef::Input(1), BufferRef::Output(0)};
    step.groups = GroupsFor(n, kGridSampleLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "GridSample", 16, 27, GridSampleOp);

}  // namespace vkserve
