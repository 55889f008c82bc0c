// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Conv (opsets 1-27), fp32 and fp16 (fp32 sums), 1-D, 2-D and 3-D, with groups, strides,
// dilations, pads / auto_pad and an optional bias, plus the fused epilogue a
// fusion pass records on the node (activation, residual add), applied in the
// store. 3-D windows run as conv3d.h says; 1-D and 2-D ones take two GPU paths:
//   - conv_direct: one input channel per group (depthwise): each invocation
//     computes up to 4 outputs of a row with the filter and the input row
//     segment in registers (fp32, or fp16 storage with fp32 sums);
//   - everything else is a GEMM of the GEMM engine (gemm_engine.h) with B
//     read as the implicit im2col view of X (1x1 stride-1 convs read X
//     directly); the engine picks the tile and K split. Two shapes first
//     copy what they read into scratch and run the pointwise product over
//     it: a strided 1x1 without pads (its pixels), and an fp16 window the
//     engine runs on tensor cores (the im2col matrix, im2col_copy.h).
// A Conv the channels-last pass marked NHWC (conv_layout.h) runs on the
// engine's NHWC im2col loader, or as a plain product when pointwise.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/composite_kernel.h"
#include "runtime/kernels/gemm/conv_geometry.h"
#include "runtime/kernels/gemm/gemm_engine.h"
#include "runtime/kernels/im2col_copy.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/activation.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"
#include "runtime/ops/nn/conv3d.h"
#include "runtime/ops/nn/conv_layout.h"

namespace vkserve {
namespace {

// Resolved shapes of one Conv at one signature.
struct ConvShape {
  DataType dtype = DataType::kFloat;  // every tensor's
  int64_t batch = 0, c_in = 0, c_out = 0, group = 1, cin_g = 0, cout_g = 0;
  Window window;
  std::vector<int64_t> output;  // full output shape
  bool nhwc = false;            // kConvLayoutAttr: X, Y [N, H, W, C], W [C_out, KH, KW, C_in]
};

bool IsNhwc(const Node& node) { return node.GetString(kConvLayoutAttr, "") == kConvLayoutNhwc; }

absl::StatusOr<ConvShape> ResolveConv(const Node& node, const TensorDesc& x, const TensorDesc& w,
                                      const TensorDesc* b) {
  RETURN_IF_ERROR(CheckDataType(x.dtype, {DataType::kFloat, DataType::kFloat16}, "Conv input X"));
  if (w.dtype != x.dtype) {
    return absl::InvalidArgumentError(absl::StrCat("Conv input W is ",
                                                   std::string(DataTypeName(w.dtype)), "; X is ",
                                                   std::string(DataTypeName(x.dtype))));
  }
  if (x.shape.size() < 3 || w.shape.size() != x.shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("X ", ShapeString(x.shape), " and W ",
                                                   ShapeString(w.shape),
                                                   " must have the same rank, at least 3"));
  }
  if (x.shape.size() > 5) {
    return absl::UnimplementedError(
        absl::StrCat("only 1-D, 2-D and 3-D Conv are supported; X is ", ShapeString(x.shape)));
  }
  ConvShape s;
  s.nhwc = IsNhwc(node);
  if (s.nhwc && (x.shape.size() != 4 || node.GetInt("group", 1) != 1)) {
    return absl::UnimplementedError(
        absl::StrCat("an NHWC Conv must be 2-D with one group; X is ", ShapeString(x.shape)));
  }
  // NHWC: the channels last, the window between (W repacked likewise).
  const size_t channel_axis = s.nhwc ? 3 : 1;
  const size_t first_spatial = s.nhwc ? 1 : 2;
  const size_t w_channel_axis = s.nhwc ? 3 : 1;
  s.dtype = x.dtype;
  s.batch = x.shape[0];
  s.c_in = x.shape[channel_axis];
  s.c_out = w.shape[0];
  s.group = node.GetInt("group", 1);
  if (s.group <= 0 || s.c_in % s.group != 0 || s.c_out % s.group != 0 ||
      w.shape[w_channel_axis] * s.group != s.c_in) {
    return absl::InvalidArgumentError(absl::StrCat("X ", ShapeString(x.shape), ", W ",
                                                   ShapeString(w.shape), " and group ", s.group,
                                                   " do not match"));
  }
  s.cin_g = s.c_in / s.group;
  s.cout_g = s.c_out / s.group;
  const std::vector<int64_t> spatial(x.shape.begin() + first_spatial,
                                     x.shape.begin() + first_spatial + x.shape.size() - 2);
  const std::vector<int64_t> kernel(w.shape.begin() + first_spatial,
                                    w.shape.begin() + first_spatial + w.shape.size() - 2);
  const std::vector<int64_t> kernel_attr = node.GetInts("kernel_shape");
  if (!kernel_attr.empty() && kernel_attr != kernel) {
    return absl::InvalidArgumentError(absl::StrCat("kernel_shape ", ShapeString(kernel_attr),
                                                   " does not match W ", ShapeString(w.shape)));
  }
  ASSIGN_OR_RETURN(s.window, ForwardWindow(node, spatial, kernel, /*ceil_mode=*/false));
  if (b != nullptr) {
    if (b->dtype != x.dtype) {
      return absl::InvalidArgumentError(absl::StrCat("Conv input B is ",
                                                     std::string(DataTypeName(b->dtype)), "; X is ",
                                                     std::string(DataTypeName(x.dtype))));
    }
    if (b->shape.size() != 1 || b->shape[0] != s.c_out) {
      return absl::InvalidArgumentError(
          absl::StrCat("B ", ShapeString(b->shape), " must be [", s.c_out, "]"));
    }
  }
  if (s.nhwc) {
    s.output = {s.batch, s.window.output[0], s.window.output[1], s.c_out};
  } else {
    s.output = {s.batch, s.c_out};
    s.output.insert(s.output.end(), s.window.output.begin(), s.window.output.end());
  }
  if (NumElements(x.shape) >= (int64_t{1} << 31) || NumElements(w.shape) >= (int64_t{1} << 31) ||
      NumElements(s.output) >= (int64_t{1} << 31)) {
    return absl::UnimplementedError("Conv tensors of 2^31 elements or more are not supported");
  }
  return s;
}

// Binds input `i`, or input 0 as a never-read placeholder when it is absent.
gpu::BufferRange ConvInputOrPlaceholder(const RecordContext& ctx, int i) {
  if (i >= 0 && static_cast<size_t>(i) < ctx.inputs.size() && ctx.inputs[i].size > 0) {
    return ctx.inputs[i];
  }
  return ctx.inputs[0];
}

class ConvDirectKernel : public Kernel {
 public:
  ConvDirectKernel(std::shared_ptr<const gpu::Pipeline> pipeline, PushConstants params,
                   std::array<uint32_t, 3> groups, int bias_input, int residual_input)
      : pipeline_(std::move(pipeline)),
        params_(std::move(params)),
        groups_(groups),
        bias_input_(bias_input),
        residual_input_(residual_input) {}

  absl::Status Record(const RecordContext& ctx) const override {
    const gpu::Binding bindings[] = {
        {ctx.inputs[0], gpu::Access::kRead},
        {ctx.inputs[1], gpu::Access::kRead},
        {ConvInputOrPlaceholder(ctx, bias_input_), gpu::Access::kRead},
        {ConvInputOrPlaceholder(ctx, residual_input_), gpu::Access::kRead},
        {ctx.outputs[0], gpu::Access::kWrite}};
    return ctx.command_buffer.Dispatch(pipeline_, bindings, params_.bytes(), groups_, ctx.label);
  }

 private:
  std::shared_ptr<const gpu::Pipeline> pipeline_;
  PushConstants params_;
  std::array<uint32_t, 3> groups_;
  int bias_input_;
  int residual_input_;
};

// The conv_direct kernel (one input channel per group), fp32 or fp16.
absl::StatusOr<std::unique_ptr<Kernel>> CreateDirectKernel(KernelContext& ctx, const ConvShape& s,
                                                           const Window2D& g, const Epilogue& e,
                                                           int bias_input, int residual_input) {
  const uint32_t act = static_cast<uint32_t>(e.activation.kind);
  const uint32_t residual = static_cast<uint32_t>(e.residual);
  // One invocation per QUAD outputs of a row (conv_direct.comp).
  const int64_t quad = g.stride_w == 1 ? 4 : 1;
  const int64_t total = s.batch * s.c_out * g.out_h * ((g.out_w + quad - 1) / quad);
  constexpr uint32_t kLocal = 128;
  ASSIGN_OR_RETURN(
      auto pipeline,
      ctx.GetPipeline(
          s.dtype == DataType::kFloat16 ? "ops/conv_direct_f16" : "ops/conv_direct", 5, 48,
          {kLocal, 1, 1},
          {U32(g.kernel_h), U32(g.kernel_w), U32(g.stride_h), U32(g.stride_w), U32(g.dilation_h),
           U32(g.dilation_w), bias_input >= 0 ? 1u : 0u, act, residual}));
  PushConstants pc;
  pc.U32(U32(s.c_in)).U32(U32(g.in_h)).U32(U32(g.in_w)).U32(U32(s.c_out));
  pc.U32(U32(g.out_h)).U32(U32(g.out_w)).U32(U32(s.cout_g)).U32(U32(total));
  pc.I32(g.pad_top).I32(g.pad_left).F32(e.activation.alpha).F32(e.activation.beta);
  return std::make_unique<ConvDirectKernel>(std::move(pipeline), std::move(pc),
                                            GroupsFor(total, kLocal, ctx.device()), bias_input,
                                            residual_input);
}

// A 1x1 window with stride 1 and no pads: each pixel is one column of the
// product, read in place.
bool IsPointwise(const Window2D& g) {
  return g.kernel_h == 1 && g.kernel_w == 1 && g.stride_h == 1 && g.stride_w == 1 &&
         g.pad_top == 0 && g.pad_left == 0 && g.pad_bottom == 0 && g.pad_right == 0;
}

// The GEMM engine's im2col product of window `g`, per group:
// Y[image][g * cout_g + m][pixel] = sum_k W[g * cout_g + m][k] * im2col(X)[k][image, pixel].
GemmProblem ConvGemmProblem(const ConvShape& s, const Window2D& g, const Epilogue& e,
                            int bias_input) {
  const int64_t out_hw = int64_t{g.out_h} * g.out_w;
  const int64_t k_total = s.cin_g * g.kernel_h * g.kernel_w;
  const int64_t in_hw = int64_t{g.in_h} * g.in_w;
  GemmProblem p;
  p.m = s.cout_g;
  p.n = s.batch * out_hw;
  p.k = k_total;
  p.a_input = 1;
  p.b_input = 0;
  p.batch = {s.group};
  p.a_batch_strides = {s.cout_g * k_total};
  p.b_batch_strides = {s.cin_g * in_hw};
  Im2colView view;
  view.window = g;
  view.image_stride = s.c_in * in_hw;
  view.pointwise = IsPointwise(g);
  p.b_im2col = view;
  if (bias_input >= 0) {
    p.c_input = bias_input;
    p.c_stride_m = 1;
    p.c_stride_batch = s.cout_g;
  }
  p.output = OutputView{out_hw, s.cout_g * out_hw, out_hw, s.c_out * out_hw};
  p.epilogue = e;
  p.dtype = s.dtype;
  return p;
}

// A 1x1 window with a stride > 1 and no pads (ResNet's downsampling
// shortcuts) reads every stride-th pixel.
bool IsStridedPointwise(const Window2D& g) {
  return g.kernel_h == 1 && g.kernel_w == 1 && (g.stride_h > 1 || g.stride_w > 1) &&
         g.pad_top == 0 && g.pad_left == 0 && g.pad_bottom == 0 && g.pad_right == 0;
}

// A 1x1 window over `image` (each pixel one column of the product).
Window2D PointwiseOver(const Window2D& image) {
  Window2D dense = image;
  dense.in_h = image.out_h;
  dense.in_w = image.out_w;
  dense.kernel_h = dense.kernel_w = 1;
  dense.stride_h = dense.stride_w = 1;
  dense.dilation_h = dense.dilation_w = 1;
  dense.pad_top = dense.pad_left = dense.pad_bottom = dense.pad_right = 0;
  return dense;
}

// `copy` (node input 0 into scratch `copied`) then `product`, which reads
// the scratch in place of X and the node's other inputs as they are;
// described as "<copy_name>, then <product's kernel>" (inspect).
std::unique_ptr<Kernel> CopyThenProduct(KernelContext& ctx, const char* copy_name,
                                        std::unique_ptr<Kernel> copy, uint32_t copied,
                                        std::unique_ptr<Kernel> product) {
  const std::string described = absl::StrCat(copy_name, ", then ", product->Describe());
  std::vector<NodeBuffer> product_inputs = {{NodeBuffer::Source::kScratch, copied}};
  for (uint32_t i = 1; i < ctx.node().inputs.size(); ++i) {
    product_inputs.push_back({NodeBuffer::Source::kInput, i});
  }
  std::vector<CompositeStep> steps;
  steps.push_back({std::move(copy),
                   {{NodeBuffer::Source::kInput, 0}},
                   {{NodeBuffer::Source::kScratch, copied}}});
  steps.push_back(
      {std::move(product), std::move(product_inputs), {{NodeBuffer::Source::kOutput, 0}}});
  return std::make_unique<CompositeKernel>(std::move(steps), described);
}

// The largest im2col matrix written out (Im2colScratchLimit, conv3d.h): the
// copy trades this much scratch for the gather; a smaller GPU keeps the
// implicit loader rather than run out of memory.

// The fewest output channels per group for which the copy pays: each
// element of the matrix is then read for at least this many outputs. On the
// H200 at b32 every 3x3 of
// ResNet-50 with 128 or more got 7-10 % faster, while the two with 64 (the
// 7x7 stem, the 3x3 64 -> 64) got 45-60 % slower: their product is as
// bound by the matrix's bytes as the gather was, and the copy adds a write
// and a read of them.
constexpr int64_t kIm2colCopyMinOutputs = 128;

// Whether to write the im2col matrix out first: an fp16 window (not 1x1)
// with at least kIm2colCopyMinOutputs outputs per group, whose product the
// engine runs on tensor cores, real or emulated. Their implicit im2col loader
// gathers each element through the window; on the H200 a 3x3 64-channel
// convolution at b32 took 197 µs that way and 72 µs as the same product read
// from a plain matrix.
bool CopiesIm2col(const KernelContext& ctx, const ConvShape& s, const Window2D& g,
                  const GemmProblem& implicit) {
  if (s.dtype != DataType::kFloat16 || (g.kernel_h == 1 && g.kernel_w == 1)) return false;
  if (s.cout_g < kIm2colCopyMinOutputs) return false;
  const gpu::DeviceInfo& info = ctx.device().info();
  if (Im2colBytes(s.dtype, s.batch, s.c_in, g) > Im2colScratchLimit(info)) return false;
  absl::StatusOr<GemmPlan> plan = PlanGemmFor(ctx.node(), implicit, info);
  return plan.ok() && plan->coopmat != nullptr;
}

// The im2col matrix copied out, then the pointwise product of W (read as
// [c_out, c_in * kh * kw]) with it.
absl::StatusOr<std::unique_ptr<Kernel>> CreateIm2colCopyProductKernel(
    KernelContext& ctx, const ConvShape& s, const Window2D& g, const Epilogue& e, int bias_input) {
  const int64_t taps = int64_t{g.kernel_h} * g.kernel_w;
  const uint32_t matrix = ctx.RequestScratch(Im2colBytes(s.dtype, s.batch, s.c_in, g));
  ASSIGN_OR_RETURN(std::unique_ptr<Kernel> copy,
                   CreateIm2colCopyKernel(ctx, s.dtype, s.batch, s.c_in, g));
  ConvShape flat = s;
  flat.c_in = s.c_in * taps;
  flat.cin_g = s.cin_g * taps;
  ASSIGN_OR_RETURN(std::unique_ptr<Kernel> product,
                   CreateGemmKernel(ctx, ConvGemmProblem(flat, PointwiseOver(g), e, bias_input)));
  return CopyThenProduct(ctx, "im2col copy", std::move(copy), matrix, std::move(product));
}

// Such a convolution as two steps: a strided copy of the pixels it reads
// into scratch (X read once), then the pointwise product over that smaller
// image, whose loader reads contiguous rows instead of gathering every
// element through the im2col view.
absl::StatusOr<std::unique_ptr<Kernel>> CreateStridedPointwiseKernel(
    KernelContext& ctx, const ConvShape& s, const Window2D& g, const Epilogue& e, int bias_input) {
  const int64_t out_hw = int64_t{g.out_h} * g.out_w;
  StridedCopy copy;
  copy.shape = {s.batch, s.c_in, g.out_h, g.out_w};
  copy.src_strides = {s.c_in * int64_t{g.in_h} * g.in_w, int64_t{g.in_h} * g.in_w,
                      int64_t{g.stride_h} * g.in_w, g.stride_w};
  copy.dst_strides = {s.c_in * out_hw, out_hw, g.out_w, 1};
  const uint32_t pixels =
      ctx.RequestScratch(static_cast<uint64_t>(s.batch * s.c_in * out_hw) * DataTypeSize(s.dtype));
  ASSIGN_OR_RETURN(std::unique_ptr<Kernel> gather,
                   CreateStridedCopyKernel(ctx, s.dtype, {std::move(copy)}));
  ASSIGN_OR_RETURN(std::unique_ptr<Kernel> product,
                   CreateGemmKernel(ctx, ConvGemmProblem(s, PointwiseOver(g), e, bias_input)));
  return CopyThenProduct(ctx, "strided copy", std::move(gather), pixels, std::move(product));
}

// An NHWC Conv (conv_layout.h). A 1x1 stride-1 window without pads is the
// plain product Y[pixels, C_out] = X[pixels, C_in] x W^T (any type and
// channel count); any other window is the NHWC im2col product
// Y^T[C_out, pixels] = W[C_out, (ky, kx, c)] x im2col(X), written through an
// output view that puts (row, col) at col * C_out + row.
absl::StatusOr<std::unique_ptr<Kernel>> CreateNhwcKernel(KernelContext& ctx, const ConvShape& s,
                                                         const Window2D& g, const Epilogue& e,
                                                         int bias_input) {
  const int64_t pixels = s.batch * int64_t{g.out_h} * g.out_w;
  GemmProblem p;
  p.dtype = s.dtype;
  p.epilogue = e;
  if (IsPointwise(g)) {
    p.m = pixels;
    p.n = s.c_out;
    p.k = s.c_in;
    p.a_input = 0;
    p.b_input = 1;
    p.b_trans = true;
    if (bias_input >= 0) {
      p.c_input = bias_input;
      p.c_stride_n = 1;
    }
    return CreateGemmKernel(ctx, std::move(p));
  }
  if (s.dtype != DataType::kFloat16 || s.c_in % 8 != 0) {
    return absl::UnimplementedError(absl::StrCat(
        "an NHWC Conv window needs fp16 tensors and a multiple of 8 input channels; this one has ",
        std::string(DataTypeName(s.dtype)), " and ", s.c_in));
  }
  p.m = s.c_out;
  p.n = pixels;
  p.k = s.c_in * g.kernel_h * g.kernel_w;
  p.a_input = 1;
  p.b_input = 0;
  Im2colView view;
  view.window = g;
  view.nhwc = true;
  p.b_im2col = view;
  if (bias_input >= 0) {
    p.c_input = bias_input;
    p.c_stride_m = 1;
  }
  p.output = OutputView{1, 0, 1, s.c_out};
  return CreateGemmKernel(ctx, std::move(p));
}

class ConvOp : public Op {
 public:
  const OpTraits& traits() const override {
    static const OpTraits kTraits = GemmEpilogueTraits({.residual_input = 3, .bias_input = -1});
    return kTraits;
  }

  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(ValidateWindowAttributes(node));
    RETURN_IF_ERROR(CheckAttributeType(node, "group", Attribute::Type::kInt));
    RETURN_IF_ERROR(CheckAttributeType(node, kConvLayoutAttr, Attribute::Type::kString));
    if (node.FindAttribute(kConvLayoutAttr) != nullptr && !IsNhwc(node)) {
      return absl::InvalidArgumentError(absl::StrCat(kConvLayoutAttr, " must be NHWC"));
    }
    if (node.GetInt("group", 1) <= 0) return absl::InvalidArgumentError("group must be positive");
    return GetEpilogue(node).status();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* w, RequireInput(ctx, 1));
    ASSIGN_OR_RETURN(ConvShape s, ResolveConv(ctx.node, *x, *w, ctx.input(2)));
    ASSIGN_OR_RETURN(Epilogue e, GetEpilogue(ctx.node));
    if (e.residual != Epilogue::Residual::kNone) {
      ASSIGN_OR_RETURN(const TensorDesc* r, RequireInput(ctx, e.residual_input));
      if (r->dtype != s.dtype || r->shape != s.output) {
        return absl::InvalidArgumentError(
            absl::StrCat("fused residual ", r->ToString(), " must be ",
                         std::string(DataTypeName(s.dtype)), ShapeString(s.output)));
      }
    }
    ctx.outputs.resize(1);
    ctx.outputs[0].dtype = s.dtype;
    ctx.outputs[0].shape = s.output;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    ASSIGN_OR_RETURN(ConvShape s, ResolveConv(node, *ctx.input(0), *ctx.input(1), ctx.input(2)));
    ASSIGN_OR_RETURN(Epilogue e, GetEpilogue(node));
    const int bias_input = ctx.input(2) != nullptr ? 2 : -1;
    const int residual_input = e.residual != Epilogue::Residual::kNone ? e.residual_input : -1;
    if (s.window.rank() == 3) {
      return CreateConv3dKernel(ctx,
                                {s.dtype, s.batch, s.c_in, s.c_out, s.group, s.cin_g, s.cout_g},
                                s.window, e, bias_input);
    }
    const Window2D g = As2D(s.window);
    if (s.nhwc) return CreateNhwcKernel(ctx, s, g, e, bias_input);
    if (s.cin_g == 1) return CreateDirectKernel(ctx, s, g, e, bias_input, residual_input);
    if (IsStridedPointwise(g)) return CreateStridedPointwiseKernel(ctx, s, g, e, bias_input);
    GemmProblem implicit = ConvGemmProblem(s, g, e, bias_input);
    if (CopiesIm2col(ctx, s, g, implicit))
      return CreateIm2colCopyProductKernel(ctx, s, g, e, bias_input);
    return CreateGemmKernel(ctx, std::move(implicit));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Conv", 1, 27, ConvOp);

}  // namespace vkserve
