// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// RoiAlign (opsets 10-27): bins of bilinear samples over regions of
// interest, avg or max, with the coordinate transforms half_pixel (opset
// 16's default) and output_half_pixel (opset 10's behavior), fp32
// (shaders/nn/roi_align.comp), as ONNX Runtime computes them. Batch
// indices out of range are clamped (nothing is read back mid-run).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kRoiAlignLocal = 256;

class RoiAlignOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    for (const char* a : {"output_height", "output_width", "sampling_ratio"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, a, Attribute::Type::kInt));
    }
    RETURN_IF_ERROR(CheckAttributeType(node, "spatial_scale", Attribute::Type::kFloat));
    RETURN_IF_ERROR(CheckAttributeType(node, "mode", Attribute::Type::kString));
    RETURN_IF_ERROR(
        CheckAttributeType(node, "coordinate_transformation_mode", Attribute::Type::kString));
    const std::string mode = node.GetString("mode", "avg");
    if (mode != "avg" && mode != "max")
      return absl::InvalidArgumentError(absl::StrCat("mode '", mode, "'"));
    const std::string ct = CoordinateMode(node);
    if (ct != "half_pixel" && ct != "output_half_pixel") {
      return absl::InvalidArgumentError(absl::StrCat("coordinate_transformation_mode '", ct, "'"));
    }
    if (node.GetInt("output_height", 1) < 1 || node.GetInt("output_width", 1) < 1 ||
        node.GetInt("sampling_ratio", 0) < 0) {
      return absl::InvalidArgumentError(
          "output sizes must be positive, sampling_ratio non-negative");
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* rois, RequireInput(ctx, 1));
    ASSIGN_OR_RETURN(const TensorDesc* batch, RequireInput(ctx, 2));
    RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat}, "X"));
    RETURN_IF_ERROR(CheckDataType(rois->dtype, {DataType::kFloat}, "rois"));
    RETURN_IF_ERROR(CheckDataType(batch->dtype, {DataType::kInt64}, "batch_indices"));
    if (x->shape.size() != 4 || rois->shape.size() != 2 || rois->shape[1] != 4 ||
        batch->shape.size() != 1 || batch->shape[0] != rois->shape[0]) {
      return absl::InvalidArgumentError(absl::StrCat("X ", x->ToString(), ", rois ",
                                                     rois->ToString(), " and batch_indices ",
                                                     batch->ToString(), " do not match"));
    }
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = {rois->shape[0], x->shape[1], ctx.node.GetInt("output_height", 1),
                            ctx.node.GetInt("output_width", 1)};
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    const uint64_t total = static_cast<uint64_t>(NumElements(ctx.output(0).shape));
    if (total == 0 || x.num_elements() == 0) return MakeEmptyKernel();
    if (total >= (uint64_t{1} << 31) || x.num_elements() >= (int64_t{1} << 31)) {
      return absl::UnimplementedError("RoiAlign: tensors too large");
    }
    const Node& node = ctx.node();
    const bool half_pixel = CoordinateMode(node) == "half_pixel";
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(total));
    for (int64_t d : x.shape) step.push.U32(static_cast<uint32_t>(d));
    step.push.U32(static_cast<uint32_t>(node.GetInt("output_height", 1)))
        .U32(static_cast<uint32_t>(node.GetInt("output_width", 1)))
        .U32(static_cast<uint32_t>(node.GetInt("sampling_ratio", 0)))
        .F32(node.GetFloat("spatial_scale", 1.0f))
        .F32(half_pixel ? 0.5f : 0.0f)
        .U32(half_pixel ? 0 : 1);
    ASSIGN_OR_RETURN(step.pipeline,
                     ctx.GetPipeline("ops/roi_align", 4, step.push.size(), {kRoiAlignLocal, 1, 1},
                                     {node.GetString("mode", "avg") == "max" ? 1u : 0u}));
    step.bindings = {BufferRef::Input(0), BufferRef::Input(1), BufferRef::Input(2),
                     BufferRef::Output(0)};
    step.groups = GroupsFor(total, kRoiAlignLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }

 private:
  // Opset 10 has no attribute and behaves as output_half_pixel.
  static std::string CoordinateMode(const Node& node) {
    return node.GetString("coordinate_transformation_mode",
                          node.opset < 16 ? "output_half_pixel" : "half_pixel");
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "RoiAlign", 10, 27, RoiAlignOp);

}  // namespace vkserve
