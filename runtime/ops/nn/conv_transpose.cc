// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ConvTranspose (opsets 1-27), fp32, 1-D, 2-D and 3-D: groups, strides, pads,
// dilations, output_padding, output_shape and auto_pad as in the ONNX
// specification, optional bias. Runs as a gather (conv_transpose.comp): one
// invocation per output element, visiting only the kernel taps whose stride
// phase lands on an input pixel.
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/gemm/conv_geometry.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

struct ConvTransposeShape {
  int64_t batch = 0, c_in = 0, c_out = 0, group = 1, cin_g = 0, cout_g = 0;
  Window window;
  std::vector<int64_t> output;
};

absl::StatusOr<ConvTransposeShape> ConvTransposeResolve(const Node& node, const TensorDesc& x,
                                                        const TensorDesc& w, const TensorDesc* b) {
  RETURN_IF_ERROR(CheckDataType(x.dtype, {DataType::kFloat}, "ConvTranspose input X"));
  RETURN_IF_ERROR(CheckDataType(w.dtype, {DataType::kFloat}, "ConvTranspose input W"));
  if (x.shape.size() < 3 || w.shape.size() != x.shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("X ", ShapeString(x.shape), " and W ",
                                                   ShapeString(w.shape),
                                                   " must have the same rank, at least 3"));
  }
  if (x.shape.size() > 5) {
    return absl::UnimplementedError(absl::StrCat(
        "only 1-D, 2-D and 3-D ConvTranspose are supported; X is ", ShapeString(x.shape)));
  }
  ConvTransposeShape s;
  s.batch = x.shape[0];
  s.c_in = x.shape[1];
  s.group = node.GetInt("group", 1);
  if (s.group <= 0 || w.shape[0] != s.c_in || s.c_in % s.group != 0) {
    return absl::InvalidArgumentError(absl::StrCat("X ", ShapeString(x.shape), ", W ",
                                                   ShapeString(w.shape), " and group ", s.group,
                                                   " do not match"));
  }
  s.cin_g = s.c_in / s.group;
  s.cout_g = w.shape[1];
  s.c_out = s.cout_g * s.group;
  const std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  const std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  const std::vector<int64_t> kernel_attr = node.GetInts("kernel_shape");
  if (!kernel_attr.empty() && kernel_attr != kernel) {
    return absl::InvalidArgumentError(absl::StrCat("kernel_shape ", ShapeString(kernel_attr),
                                                   " does not match W ", ShapeString(w.shape)));
  }
  ASSIGN_OR_RETURN(s.window, TransposeWindow(node, spatial, kernel));
  if (b != nullptr) {
    RETURN_IF_ERROR(CheckDataType(b->dtype, {DataType::kFloat}, "ConvTranspose input B"));
    if (b->shape.size() != 1 || b->shape[0] != s.c_out) {
      return absl::InvalidArgumentError(
          absl::StrCat("B ", ShapeString(b->shape), " must be [", s.c_out, "]"));
    }
  }
  s.output = {s.batch, s.c_out};
  s.output.insert(s.output.end(), s.window.output.begin(), s.window.output.end());
  if (NumElements(x.shape) >= (int64_t{1} << 31) || NumElements(s.output) >= (int64_t{1} << 31)) {
    return absl::UnimplementedError(
        "ConvTranspose tensors of 2^31 elements or more are not supported");
  }
  return s;
}

class ConvTransposeOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(ValidateWindowAttributes(node));
    RETURN_IF_ERROR(CheckAttributeType(node, "group", Attribute::Type::kInt));
    if (node.GetInt("group", 1) <= 0) return absl::InvalidArgumentError("group must be positive");
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* w, RequireInput(ctx, 1));
    ASSIGN_OR_RETURN(ConvTransposeShape s, ConvTransposeResolve(ctx.node, *x, *w, ctx.input(2)));
    ctx.outputs.resize(1);
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = s.output;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(ConvTransposeShape s,
                     ConvTransposeResolve(ctx.node(), *ctx.input(0), *ctx.input(1), ctx.input(2)));
    // 3-D: the depth dim apart, the last two as a 2-D window.
    Window hw = s.window;
    int64_t in_d = 1, out_d = 1, kd = 1, sd = 1, dd = 1, pad_front = 0;
    if (hw.rank() == 3) {
      in_d = hw.input[0], out_d = hw.output[0], kd = hw.kernel[0], sd = hw.strides[0];
      dd = hw.dilations[0], pad_front = hw.pad_begin[0];
      for (std::vector<int64_t>* v : {&hw.input, &hw.kernel, &hw.strides, &hw.dilations,
                                      &hw.pad_begin, &hw.pad_end, &hw.output}) {
        v->erase(v->begin());
      }
    }
    const Window2D g = As2D(hw);
    const bool has_bias = ctx.input(2) != nullptr;
    const int64_t total = NumElements(s.output);
    constexpr uint32_t kLocal = 128;
    ASSIGN_OR_RETURN(auto pipeline,
                     ctx.GetPipeline("ops/conv_transpose", 4, 56, {kLocal, 1, 1},
                                     {U32(g.kernel_h), U32(g.kernel_w), U32(g.stride_h),
                                      U32(g.stride_w), U32(g.dilation_h), U32(g.dilation_w),
                                      has_bias ? 1u : 0u, U32(kd), U32(sd), U32(dd)}));
    PushConstants pc;
    pc.U32(U32(s.c_in)).U32(U32(g.in_h)).U32(U32(g.in_w)).U32(U32(s.c_out));
    pc.U32(U32(g.out_h)).U32(U32(g.out_w)).U32(U32(s.cin_g)).U32(U32(s.cout_g));
    pc.U32(U32(total)).I32(g.pad_top).I32(g.pad_left);
    pc.U32(U32(in_d)).U32(U32(out_d)).I32(static_cast<int32_t>(pad_front));
    // Without a bias the shader's bias binding is never read: bind X there.
    return MakeDispatchKernel({std::move(pipeline),
                               {BufferRef::Input(0), BufferRef::Input(1),
                                BufferRef::Input(has_bias ? 2 : 0), BufferRef::Output(0)},
                               std::move(pc),
                               GroupsFor(total, kLocal, ctx.device())});
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "ConvTranspose", 1, 27, ConvTransposeOp);

}  // namespace vkserve
