// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Conv (opsets 1-27), fp32, 1-D and 2-D, with groups, strides, dilations,
// pads / auto_pad and an optional bias, plus the fused epilogue a fusion pass
// records on the node (activation, residual add), applied in the store.
// Two GPU paths:
//   - conv_direct: one input channel per group (depthwise): each invocation
//     computes up to 4 outputs of a row with the filter and the input row
//     segment in registers;
//   - conv_gemm_<BM>x<BN>: everything else as an implicit GEMM tiled through
//     double-buffered shared memory with register prefetch (1x1 stride-1
//     convs are a plain GEMM with 128-bit loads and stores). The tile and a
//     K split are chosen per shape by a cost model calibrated on an H100
//     (ChooseGemm); split-K writes partial sums to scratch and conv_reduce
//     adds them up and applies the epilogue.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/activation.h"
#include "runtime/op_registry.h"
#include "runtime/op_util.h"
#include "runtime/ops/conv_geometry.h"

namespace vkserve {
namespace {

// Resolved shapes of one Conv at one signature.
struct ConvShape {
  int64_t batch = 0, c_in = 0, c_out = 0, group = 1, cin_g = 0, cout_g = 0;
  Window window;
  std::vector<int64_t> output;  // full output shape
};

absl::StatusOr<ConvShape> ResolveConv(const Node& node, const TensorDesc& x, const TensorDesc& w,
                                      const TensorDesc* b) {
  RETURN_IF_ERROR(CheckDataType(x.dtype, {DataType::kFloat}, "Conv input X"));
  RETURN_IF_ERROR(CheckDataType(w.dtype, {DataType::kFloat}, "Conv input W"));
  if (x.shape.size() < 3 || w.shape.size() != x.shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("X ", ShapeString(x.shape), " and W ",
                                                   ShapeString(w.shape),
                                                   " must have the same rank, at least 3"));
  }
  if (x.shape.size() > 4) {
    return absl::UnimplementedError(
        absl::StrCat("only 1-D and 2-D Conv are supported; X is ", ShapeString(x.shape)));
  }
  ConvShape s;
  s.batch = x.shape[0];
  s.c_in = x.shape[1];
  s.c_out = w.shape[0];
  s.group = node.GetInt("group", 1);
  if (s.group <= 0 || s.c_in % s.group != 0 || s.c_out % s.group != 0 ||
      w.shape[1] * s.group != s.c_in) {
    return absl::InvalidArgumentError(absl::StrCat("X ", ShapeString(x.shape), ", W ",
                                                   ShapeString(w.shape), " and group ", s.group,
                                                   " do not match"));
  }
  s.cin_g = s.c_in / s.group;
  s.cout_g = s.c_out / s.group;
  const std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  const std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  const std::vector<int64_t> kernel_attr = node.GetInts("kernel_shape");
  if (!kernel_attr.empty() && kernel_attr != kernel) {
    return absl::InvalidArgumentError(absl::StrCat("kernel_shape ", ShapeString(kernel_attr),
                                                   " does not match W ", ShapeString(w.shape)));
  }
  ASSIGN_OR_RETURN(s.window, ForwardWindow(node, spatial, kernel, /*ceil_mode=*/false));
  if (b != nullptr) {
    RETURN_IF_ERROR(CheckDataType(b->dtype, {DataType::kFloat}, "Conv input B"));
    if (b->shape.size() != 1 || b->shape[0] != s.c_out) {
      return absl::InvalidArgumentError(
          absl::StrCat("B ", ShapeString(b->shape), " must be [", s.c_out, "]"));
    }
  }
  s.output = {s.batch, s.c_out};
  s.output.insert(s.output.end(), s.window.output.begin(), s.window.output.end());
  if (NumElements(x.shape) >= (int64_t{1} << 31) || NumElements(w.shape) >= (int64_t{1} << 31) ||
      NumElements(s.output) >= (int64_t{1} << 31)) {
    return absl::UnimplementedError("Conv tensors of 2^31 elements or more are not supported");
  }
  return s;
}

// One tile shape of the conv_gemm_<BM>x<BN> shaders (fixed at compile time
// there; mirrored here for selection). The speeds are the tile's relative
// throughput per padded FLOP when the GPU is full, measured on an H100, for
// im2col convs (gathered B loads: taller tiles reuse them more) and for
// pointwise ones (vector B loads). An 8 x 8 register tile (128 x 128)
// measured 10-20x slower than these on the H100's Vulkan driver, and
// 64 x 128 and 32 x 32 never win in this model, so none of them is built.
struct GemmTile {
  uint32_t bm, bn, bk, tm, tn;
  double speed_im2col, speed_pointwise;
  uint32_t threads() const { return (bm / tm) * (bn / tn); }
  // Two stages of A and B tiles, rows padded by one vec4.
  uint32_t shared_bytes() const { return 2 * bk * ((bm / 4 + 1) + (bn / 4 + 1)) * 16; }
  std::string shader() const { return absl::StrCat("ops/conv_gemm_", bm, "x", bn); }
};

// On equal cost the earlier tile wins.
constexpr GemmTile kGemmTiles[] = {
    {128, 64, 16, 8, 4, 1.0, 0.9},  {64, 64, 16, 4, 4, 0.9, 1.0},  {64, 32, 16, 4, 4, 0.85, 0.9},
    {32, 64, 16, 4, 4, 0.75, 0.85}, {16, 64, 16, 4, 4, 0.5, 0.6},
};

struct GemmPlan {
  GemmTile tile;
  uint32_t splits = 1;
  uint32_t k_chunk = 0;
};

// Picks the tile and K split of an M x N x K GEMM repeated `groups` times by
// a cost model in microseconds: padded FLOPs at the tile's share of the
// device's rate, divided by the fraction of the device the dispatch keeps
// busy (`target` invocations; below it the GPU is latency-bound and tile
// speed matters less), plus a fixed cost per dispatch. Splitting K (powers
// of two) fills the device when there are few output tiles, at the price of
// the reduction pass: one more dispatch and the partial sums' traffic.
absl::StatusOr<GemmPlan> ChooseGemm(int64_t m, int64_t n, int64_t k, int64_t groups, bool pointwise,
                                    const gpu::DeviceInfo& info) {
  // Measured on an H100 (132 SMs): ~20 TFLOP/s for well-shaped tiles, ~5 us
  // per dispatch, ~2.5 TB/s, busy from ~40K invocations. A CPU device
  // (lavapipe) is far slower but still gets split-K when a dispatch would
  // run on a few cores.
  const bool cpu = info.type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  const double target = cpu ? 4096.0 : 40960.0;
  const double flops_per_us = cpu ? 5e4 : 2e7;
  const double bytes_per_us = cpu ? 2e4 : 2.5e6;
  const double dispatch_us = cpu ? 20.0 : 5.0;
  constexpr int64_t kMaxSplits = 16;
  const double out_bytes = 4.0 * static_cast<double>(m * n * groups);
  GemmPlan best;
  double best_cost = 0;
  bool found = false;
  for (const GemmTile& t : kGemmTiles) {
    if (t.threads() > info.max_workgroup_invocations || t.threads() > info.max_workgroup_size[0] ||
        t.shared_bytes() > info.max_shared_memory) {
      continue;
    }
    const int64_t tiles = ((m + t.bm - 1) / t.bm) * ((n + t.bn - 1) / t.bn) * groups;
    const double padded = 2.0 * static_cast<double>(((m + t.bm - 1) / t.bm) * t.bm) *
                          static_cast<double>(((n + t.bn - 1) / t.bn) * t.bn) * k;
    const double tile_speed = pointwise ? t.speed_pointwise : t.speed_im2col;
    for (int64_t splits = 1; splits <= kMaxSplits && (splits == 1 || k / splits >= t.bk);
         splits *= 2) {
      const double busy = std::min(1.0, static_cast<double>(tiles * splits * t.threads()) / target);
      const double speed = std::pow(tile_speed, busy);
      double cost = padded / (flops_per_us * speed * busy) + dispatch_us;
      if (splits > 1) cost += dispatch_us + (splits + 1) * out_bytes / bytes_per_us;
      if (!found || cost < best_cost * 0.999) {
        found = true;
        best_cost = cost;
        best.tile = t;
        best.splits = static_cast<uint32_t>(splits);
      }
    }
  }
  if (!found) {
    return absl::UnimplementedError("no Conv GEMM tile fits this device's workgroup limits");
  }
  const int64_t bk = best.tile.bk;
  const int64_t chunk = ((k + best.splits - 1) / best.splits + bk - 1) / bk * bk;
  best.k_chunk = static_cast<uint32_t>(chunk);
  best.splits = static_cast<uint32_t>((k + chunk - 1) / chunk);
  return best;
}

// Binds input `i`, or input 0 as a never-read placeholder when it is absent.
gpu::BufferRange InputOrPlaceholder(const RecordContext& ctx, int i) {
  if (i >= 0 && static_cast<size_t>(i) < ctx.inputs.size() && ctx.inputs[i].size > 0) {
    return ctx.inputs[i];
  }
  return ctx.inputs[0];
}

absl::Status CheckAligned16(const gpu::BufferRange& r, const char* what) {
  if (r.offset % 16 != 0) {
    return absl::InternalError(
        absl::StrCat("Conv vector path needs 16-byte aligned ", what, "; offset is ", r.offset));
  }
  return absl::OkStatus();
}

class ConvGemmKernel : public Kernel {
 public:
  struct Config {
    std::shared_ptr<const gpu::Pipeline> gemm;
    std::shared_ptr<const gpu::Pipeline> reduce;  // split-K only
    PushConstants gemm_params;
    PushConstants reduce_params;
    std::array<uint32_t, 3> gemm_groups{};
    std::array<uint32_t, 3> reduce_groups{};
    uint32_t scratch = 0;
    int bias_input = -1;
    int residual_input = -1;
    bool vec_x = false, vec_w = false, vec_y = false;
  };
  explicit ConvGemmKernel(Config c) : c_(std::move(c)) {}

  absl::Status Record(const RecordContext& ctx) const override {
    const gpu::BufferRange bias = InputOrPlaceholder(ctx, c_.bias_input);
    const gpu::BufferRange residual = InputOrPlaceholder(ctx, c_.residual_input);
    if (c_.vec_x) RETURN_IF_ERROR(CheckAligned16(ctx.inputs[0], "X"));
    if (c_.vec_w) RETURN_IF_ERROR(CheckAligned16(ctx.inputs[1], "W"));
    const gpu::BufferRange out = c_.reduce ? ctx.scratch[c_.scratch] : ctx.outputs[0];
    if (c_.vec_y) {
      RETURN_IF_ERROR(CheckAligned16(out, "Y"));
      if (!c_.reduce && c_.residual_input >= 0)
        RETURN_IF_ERROR(CheckAligned16(residual, "residual"));
    }
    const gpu::Binding bindings[] = {{ctx.inputs[0], gpu::Access::kRead},
                                     {ctx.inputs[1], gpu::Access::kRead},
                                     {bias, gpu::Access::kRead},
                                     {residual, gpu::Access::kRead},
                                     {out, gpu::Access::kWrite}};
    RETURN_IF_ERROR(ctx.command_buffer.Dispatch(c_.gemm, bindings, c_.gemm_params.bytes(),
                                                c_.gemm_groups, ctx.label));
    if (!c_.reduce) return absl::OkStatus();
    const gpu::Binding reduce_bindings[] = {{out, gpu::Access::kRead},
                                            {bias, gpu::Access::kRead},
                                            {residual, gpu::Access::kRead},
                                            {ctx.outputs[0], gpu::Access::kWrite}};
    return ctx.command_buffer.Dispatch(c_.reduce, reduce_bindings, c_.reduce_params.bytes(),
                                       c_.reduce_groups, ctx.label);
  }

 private:
  Config c_;
};

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
    const gpu::Binding bindings[] = {{ctx.inputs[0], gpu::Access::kRead},
                                     {ctx.inputs[1], gpu::Access::kRead},
                                     {InputOrPlaceholder(ctx, bias_input_), gpu::Access::kRead},
                                     {InputOrPlaceholder(ctx, residual_input_), gpu::Access::kRead},
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

uint32_t U32(int64_t v) { return static_cast<uint32_t>(v); }

class ConvOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(ValidateWindowAttributes(node));
    RETURN_IF_ERROR(CheckAttributeType(node, "group", Attribute::Type::kInt));
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
      if (r->dtype != DataType::kFloat || r->shape != s.output) {
        return absl::InvalidArgumentError(absl::StrCat("fused residual ", r->ToString(),
                                                       " must be float", ShapeString(s.output)));
      }
    }
    ctx.outputs.resize(1);
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = s.output;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    ASSIGN_OR_RETURN(ConvShape s, ResolveConv(node, *ctx.input(0), *ctx.input(1), ctx.input(2)));
    ASSIGN_OR_RETURN(Epilogue e, GetEpilogue(node));
    const int bias_input = ctx.input(2) != nullptr ? 2 : -1;
    const int residual_input = e.residual != Epilogue::Residual::kNone ? e.residual_input : -1;
    const Window2D g = As2D(s.window);
    const gpu::DeviceInfo& info = ctx.device().info();
    const int64_t out_hw = int64_t{g.out_h} * g.out_w;
    const uint32_t act = static_cast<uint32_t>(e.activation.kind);
    const uint32_t residual = static_cast<uint32_t>(e.residual);

    if (s.cin_g == 1) {
      // One invocation per QUAD outputs of a row (conv_direct.comp).
      const int64_t quad = g.stride_w == 1 ? 4 : 1;
      const int64_t total = s.batch * s.c_out * g.out_h * ((g.out_w + quad - 1) / quad);
      constexpr uint32_t kLocal = 128;
      ASSIGN_OR_RETURN(auto pipeline,
                       ctx.GetPipeline("ops/conv_direct", 5, 48, {kLocal, 1, 1},
                                       {U32(g.kernel_h), U32(g.kernel_w), U32(g.stride_h),
                                        U32(g.stride_w), U32(g.dilation_h), U32(g.dilation_w),
                                        bias_input >= 0 ? 1u : 0u, act, residual}));
      PushConstants pc;
      pc.U32(U32(s.c_in)).U32(U32(g.in_h)).U32(U32(g.in_w)).U32(U32(s.c_out));
      pc.U32(U32(g.out_h)).U32(U32(g.out_w)).U32(U32(s.cout_g)).U32(U32(total));
      pc.I32(g.pad_top).I32(g.pad_left).F32(e.activation.alpha).F32(e.activation.beta);
      return std::make_unique<ConvDirectKernel>(std::move(pipeline), std::move(pc),
                                                GroupsFor(total, kLocal, ctx.device()), bias_input,
                                                residual_input);
    }

    const int64_t pixels = s.batch * out_hw;
    const int64_t k_total = s.cin_g * g.kernel_h * g.kernel_w;
    const bool pointwise = g.kernel_h == 1 && g.kernel_w == 1 && g.stride_h == 1 &&
                           g.stride_w == 1 && g.pad_top == 0 && g.pad_left == 0 &&
                           g.pad_bottom == 0 && g.pad_right == 0;
    ASSIGN_OR_RETURN(GemmPlan plan,
                     ChooseGemm(s.cout_g, pixels, k_total, s.group, pointwise, info));
    const GemmTile& t = plan.tile;
    const int64_t total = NumElements(s.output);
    if (total * plan.splits >= (int64_t{1} << 32)) {
      plan.splits = 1;
      plan.k_chunk = U32(k_total);
    }
    ConvGemmKernel::Config c;
    c.vec_w = k_total % 4 == 0;
    c.vec_x = pointwise && out_hw % 4 == 0;
    c.vec_y = out_hw % 4 == 0;
    const bool split = plan.splits > 1;
    c.gemm_groups = {U32((pixels + t.bn - 1) / t.bn), U32((s.cout_g + t.bm - 1) / t.bm),
                     U32(s.group * plan.splits)};
    for (int i = 0; i < 3; ++i) {
      if (c.gemm_groups[i] > info.max_workgroup_count[i]) {
        return absl::UnimplementedError(
            absl::StrCat("Conv needs ", c.gemm_groups[i], " workgroups along dimension ", i,
                         "; the device allows ", info.max_workgroup_count[i]));
      }
    }
    ASSIGN_OR_RETURN(
        c.gemm, ctx.GetPipeline(t.shader(), 5, 64, {t.threads(), 1, 1},
                                {U32(g.kernel_h), U32(g.kernel_w), U32(g.stride_h), U32(g.stride_w),
                                 U32(g.dilation_h), U32(g.dilation_w), pointwise ? 1u : 0u,
                                 c.vec_w ? 1u : 0u, c.vec_x ? 1u : 0u, c.vec_y ? 1u : 0u,
                                 bias_input >= 0 ? 1u : 0u, act, residual, split ? 1u : 0u}));
    c.gemm_params.U32(U32(s.c_in)).U32(U32(g.in_h)).U32(U32(g.in_w)).U32(U32(s.c_out));
    c.gemm_params.U32(U32(out_hw)).U32(U32(g.out_w)).U32(U32(s.cin_g)).U32(U32(s.cout_g));
    c.gemm_params.U32(U32(k_total)).U32(U32(pixels)).I32(g.pad_top).I32(g.pad_left);
    c.gemm_params.U32(plan.k_chunk).U32(plan.splits);
    c.gemm_params.F32(e.activation.alpha).F32(e.activation.beta);
    if (split) {
      constexpr uint32_t kLocal = 256;
      c.scratch = ctx.RequestScratch(static_cast<uint64_t>(total) * plan.splits * 4);
      ASSIGN_OR_RETURN(c.reduce, ctx.GetPipeline("ops/conv_reduce", 4, 24, {kLocal, 1, 1},
                                                 {bias_input >= 0 ? 1u : 0u, act, residual}));
      c.reduce_params.U32(U32(total)).U32(plan.splits).U32(U32(out_hw)).U32(U32(s.c_out));
      c.reduce_params.F32(e.activation.alpha).F32(e.activation.beta);
      c.reduce_groups = GroupsFor(total, kLocal, ctx.device());
    }
    c.bias_input = bias_input;
    c.residual_input = residual_input;
    return std::make_unique<ConvGemmKernel>(std::move(c));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Conv", 1, 27, ConvOp);

}  // namespace vkserve
