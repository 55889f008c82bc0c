// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// DeformConv (opsets 19-27), 2-D: a convolution whose taps sample the input
// bilinearly at positions moved by `offset`, optionally scaled by `mask`,
// with groups, offset groups, strides, pads, dilations and a bias; fp32
// (shaders/nn/deform_conv.comp, a direct sum per output element).
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kDeformConvLocal = 128;

struct DeformConvGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0, oc = 0, kh = 0, kw = 0, oh = 0, ow = 0, group = 1,
          offset_group = 1;
  std::vector<int64_t> strides, pads, dilations;
};

absl::StatusOr<DeformConvGeometry> DeformConvGeometryOf(const Node& node, const TensorDesc& x,
                                                        const TensorDesc& wt,
                                                        const TensorDesc& offset,
                                                        const TensorDesc* bias,
                                                        const TensorDesc* mask) {
  if (x.shape.size() != 4 || wt.shape.size() != 4 || offset.shape.size() != 4) {
    return absl::UnimplementedError("DeformConv of other than 2-D images");
  }
  DeformConvGeometry g;
  g.n = x.shape[0], g.c = x.shape[1], g.h = x.shape[2], g.w = x.shape[3];
  g.oc = wt.shape[0], g.kh = wt.shape[2], g.kw = wt.shape[3];
  g.group = node.GetInt("group", 1);
  g.offset_group = node.GetInt("offset_group", 1);
  g.strides = node.GetInts("strides", {1, 1});
  g.pads = node.GetInts("pads", {0, 0, 0, 0});
  g.dilations = node.GetInts("dilations", {1, 1});
  const std::vector<int64_t> kernel = node.GetInts("kernel_shape", {g.kh, g.kw});
  if (g.strides.size() != 2 || g.pads.size() != 4 || g.dilations.size() != 2 ||
      kernel != std::vector{g.kh, g.kw}) {
    return absl::InvalidArgumentError(
        "strides, pads, dilations or kernel_shape do not match a 2-D kernel");
  }
  if (g.group < 1 || g.offset_group < 1 || g.c % g.group != 0 || g.oc % g.group != 0 ||
      g.c % g.offset_group != 0 || wt.shape[1] != g.c / g.group) {
    return absl::InvalidArgumentError(absl::StrCat("W ", wt.ToString(), " does not fit X ",
                                                   x.ToString(), " with group ", g.group,
                                                   " and offset_group ", g.offset_group));
  }
  for (int d = 0; d < 2; ++d) {
    if (g.strides[d] < 1 || g.dilations[d] < 1 || g.pads[d] < 0 || g.pads[d + 2] < 0) {
      return absl::InvalidArgumentError(
          "strides and dilations must be positive, pads non-negative");
    }
  }
  g.oh = (g.h + g.pads[0] + g.pads[2] - g.dilations[0] * (g.kh - 1) - 1) / g.strides[0] + 1;
  g.ow = (g.w + g.pads[1] + g.pads[3] - g.dilations[1] * (g.kw - 1) - 1) / g.strides[1] + 1;
  if (g.oh < 1 || g.ow < 1)
    return absl::InvalidArgumentError("the kernel is larger than the padded input");
  const int64_t taps = g.kh * g.kw;
  if (offset.shape != std::vector<int64_t>{g.n, g.offset_group * 2 * taps, g.oh, g.ow}) {
    return absl::InvalidArgumentError(
        absl::StrCat("offset ", offset.ToString(), " does not match the output"));
  }
  if (bias != nullptr && bias->shape != std::vector<int64_t>{g.oc}) {
    return absl::InvalidArgumentError(
        absl::StrCat("B ", bias->ToString(), " must be [", g.oc, "]"));
  }
  if (mask != nullptr &&
      mask->shape != std::vector<int64_t>{g.n, g.offset_group * taps, g.oh, g.ow}) {
    return absl::InvalidArgumentError(
        absl::StrCat("mask ", mask->ToString(), " does not match the output"));
  }
  return g;
}

class DeformConvOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    for (const char* a : {"dilations", "kernel_shape", "pads", "strides"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, a, Attribute::Type::kInts));
    }
    RETURN_IF_ERROR(CheckAttributeType(node, "group", Attribute::Type::kInt));
    return CheckAttributeType(node, "offset_group", Attribute::Type::kInt);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* wt, RequireInput(ctx, 1));
    ASSIGN_OR_RETURN(const TensorDesc* offset, RequireInput(ctx, 2));
    for (size_t i = 0; i < 5; ++i) {
      if (const TensorDesc* t = ctx.input(i))
        RETURN_IF_ERROR(CheckDataType(t->dtype, {DataType::kFloat}, absl::StrCat("input ", i)));
    }
    ASSIGN_OR_RETURN(const DeformConvGeometry g,
                     DeformConvGeometryOf(ctx.node, *x, *wt, *offset, ctx.input(3), ctx.input(4)));
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = {g.n, g.oc, g.oh, g.ow};
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    auto present = [&](size_t i) { return i < ctx.num_inputs() && ctx.input(i) != nullptr; };
    const TensorDesc* bias = present(3) ? ctx.input(3) : nullptr;
    const TensorDesc* mask = present(4) ? ctx.input(4) : nullptr;
    ASSIGN_OR_RETURN(
        const DeformConvGeometry g,
        DeformConvGeometryOf(ctx.node(), *ctx.input(0), *ctx.input(1), *ctx.input(2), bias, mask));
    const uint64_t total = static_cast<uint64_t>(g.n * g.oc * g.oh * g.ow);
    if (total == 0) return MakeEmptyKernel();
    if (total >= (uint64_t{1} << 31) || ctx.input(0)->num_elements() >= (int64_t{1} << 31) ||
        ctx.input(2)->num_elements() >= (int64_t{1} << 31)) {
      return absl::UnimplementedError("DeformConv: tensors too large");
    }
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(total));
    for (int64_t v : {g.c, g.h, g.w, g.oc, g.oh, g.ow, g.kh, g.kw, g.group, g.offset_group}) {
      step.push.U32(static_cast<uint32_t>(v));
    }
    for (int64_t v :
         {g.strides[0], g.strides[1], g.pads[0], g.pads[1], g.dilations[0], g.dilations[1]}) {
      step.push.I32(static_cast<int32_t>(v));
    }
    const bool has_bias = bias != nullptr && bias->num_elements() > 0;
    const bool has_mask = mask != nullptr && mask->num_elements() > 0;
    ASSIGN_OR_RETURN(step.pipeline, ctx.GetPipeline("ops/deform_conv", 6, step.push.size(),
                                                    {kDeformConvLocal, 1, 1},
                                                    {has_bias ? 1u : 0u, has_mask ? 1u : 0u}));
    // Absent B or mask: X bound in its place, unread.
    step.bindings = {BufferRef::Input(0),
                     BufferRef::Input(1),
                     BufferRef::Input(2),
                     BufferRef::Input(has_bias ? 3 : 0),
                     BufferRef::Input(has_mask ? 4 : 0),
                     BufferRef::Output(0)};
    step.groups = GroupsFor(total, kDeformConvLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "DeformConv", 19, 27, DeformConvOp);

}  // namespace vkserve
