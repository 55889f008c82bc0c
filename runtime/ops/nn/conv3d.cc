// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// 3-D Conv on the GEMM engine (see the header).
#include "runtime/ops/nn/conv3d.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/gemm/gemm_engine.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint64_t kMaxIm2colBytes = uint64_t{512} << 20;

// (magic, shift) for im2col3d.comp's FastDiv by `d` (1 <= d < 2^31) of
// numerators below 2^31 (as im2col_copy.cc computes them for the 2-D copy).
std::pair<uint32_t, uint32_t> Conv3dDivisionMagic(uint32_t d) {
  if (d <= 1) return {0, 0};
  uint32_t l = 0;
  while ((uint64_t{1} << l) < d) ++l;
  const uint64_t magic = ((uint64_t{1} << (31 + l)) + d - 1) / d;
  return {static_cast<uint32_t>(magic), l - 1};
}

// The 3-D window's sizes, named.
struct Geometry3d {
  int64_t in_d, in_h, in_w, out_d, out_h, out_w;
  int64_t kd, kh, kw, sd, sh, sw, dd, dh, dw;
  int64_t pad_front, pad_top, pad_left;
  int64_t taps() const { return kd * kh * kw; }
  int64_t out_hw() const { return out_h * out_w; }
  int64_t out_dhw() const { return out_d * out_h * out_w; }
  bool pointwise(const Window& w) const {
    return taps() == 1 && sd == 1 && sh == 1 && sw == 1 &&
           std::all_of(w.pad_begin.begin(), w.pad_begin.end(), [](int64_t p) { return p == 0; }) &&
           std::all_of(w.pad_end.begin(), w.pad_end.end(), [](int64_t p) { return p == 0; });
  }
};

Geometry3d GeometryOf(const Window& w) {
  return {w.input[0],     w.input[1],     w.input[2],     w.output[0],    w.output[1],
          w.output[2],    w.kernel[0],    w.kernel[1],    w.kernel[2],    w.strides[0],
          w.strides[1],   w.strides[2],   w.dilations[0], w.dilations[1], w.dilations[2],
          w.pad_begin[0], w.pad_begin[1], w.pad_begin[2]};
}

// The pointwise product of W (as [c_out, k_g] per group) with B, node input
// 0: `images` images of [group * k_g, pixels], stored into Y, whose images
// have `out_pixels` pixels per channel.
GemmProblem PointwiseProduct(const ConvSizes& s, int64_t k_g, int64_t images, int64_t pixels,
                             int64_t out_pixels, const Epilogue& e, int bias_input) {
  GemmProblem p;
  p.m = s.cout_g;
  p.n = images * pixels;
  p.k = k_g;
  p.a_input = 1;
  p.b_input = 0;
  p.batch = {s.group};
  p.a_batch_strides = {s.cout_g * k_g};
  p.b_batch_strides = {k_g * pixels};
  Im2colView view;
  const int32_t row = static_cast<int32_t>(pixels);
  view.window = Window2D{1, row, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, row};
  view.image_stride = s.group * k_g * pixels;
  view.pointwise = true;
  p.b_im2col = view;
  if (bias_input >= 0) {
    p.c_input = bias_input;
    p.c_stride_m = 1;
    p.c_stride_batch = s.cout_g;
  }
  p.output = OutputView{pixels, s.cout_g * out_pixels, out_pixels, s.c_out * out_pixels};
  p.epilogue = e;
  p.dtype = s.dtype;
  return p;
}

// Chunks of the im2col matrix: `images` whole images at a time, or one
// image's `slices` output depth slices at a time.
struct ChunkSize {
  int64_t images = 0;
  int64_t slices = 0;
};

// The largest chunks whose matrix fits `limit` bytes and whose parts of Y
// start `align`-byte aligned (each product binds its part of Y, and of the
// residual, at that offset).
absl::StatusOr<ChunkSize> PlanChunks(const ConvSizes& s, const Geometry3d& g, uint64_t elem_bytes,
                                     uint64_t limit, uint64_t align) {
  const uint64_t slice_bytes =
      static_cast<uint64_t>(s.c_in * g.taps() * g.out_hw()) * elem_bytes;  // per image
  const uint64_t image_bytes = slice_bytes * g.out_d;
  const uint64_t y_image_bytes = static_cast<uint64_t>(s.c_out * g.out_dhw()) * elem_bytes;
  if (image_bytes * s.batch <= limit) return ChunkSize{s.batch, g.out_d};
  for (int64_t images = std::min<int64_t>(s.batch, limit / image_bytes); images >= 1; --images) {
    if (images * y_image_bytes % align == 0) return ChunkSize{images, g.out_d};
  }
  if (s.batch == 1 || y_image_bytes % align == 0) {
    const uint64_t y_slice_bytes = static_cast<uint64_t>(g.out_hw()) * elem_bytes;
    for (int64_t slices = std::min<int64_t>(g.out_d, limit / slice_bytes); slices >= 1; --slices) {
      if (slices * y_slice_bytes % align == 0) return ChunkSize{1, slices};
    }
  }
  return absl::UnimplementedError(
      absl::StrCat("the im2col matrix of this 3-D Conv takes ", image_bytes * s.batch,
                   " bytes; no chunking fits the ", limit, "-byte scratch limit with ", align,
                   "-byte aligned output parts"));
}

// One chunk: its copy into the matrix and its product, storing
// `y_offset` bytes into Y (and reading the residual as far in).
struct Conv3dChunk {
  std::unique_ptr<Kernel> copy;
  std::unique_ptr<Kernel> product;
  uint64_t y_offset = 0;
};

gpu::BufferRange Advance(gpu::BufferRange r, uint64_t bytes) {
  r.offset += bytes;
  r.size = r.size > bytes ? r.size - bytes : 0;
  return r;
}

class Conv3dKernel : public Kernel {
 public:
  // `matrix`: the scratch index of the im2col matrix, unused without copies.
  Conv3dKernel(std::vector<Conv3dChunk> chunks, uint32_t matrix, int residual_input,
               std::string description)
      : chunks_(std::move(chunks)),
        matrix_(matrix),
        residual_input_(residual_input),
        description_(std::move(description)) {}

  absl::Status Record(const RecordContext& ctx) const override {
    for (const Conv3dChunk& chunk : chunks_) {
      RecordContext product{
          ctx.command_buffer, ctx.inputs,    {Advance(ctx.outputs[0], chunk.y_offset)},
          ctx.scratch,        ctx.constants, ctx.label};
      if (chunk.copy) {
        const RecordContext copy{ctx.command_buffer, {ctx.inputs[0]}, {ctx.scratch[matrix_]},
                                 ctx.scratch,        ctx.constants,   ctx.label};
        RETURN_IF_ERROR(chunk.copy->Record(copy));
        product.inputs[0] = ctx.scratch[matrix_];
      }
      if (residual_input_ >= 0) {
        product.inputs[residual_input_] = Advance(ctx.inputs[residual_input_], chunk.y_offset);
      }
      RETURN_IF_ERROR(chunk.product->Record(product));
    }
    return absl::OkStatus();
  }

  std::string Describe() const override { return description_; }

 private:
  std::vector<Conv3dChunk> chunks_;
  uint32_t matrix_;
  int residual_input_;
  std::string description_;
};

// The im2col3d copy of `chunk` (images from `image0`, output slices from `z0`).
absl::StatusOr<std::unique_ptr<Kernel>> CreateIm2col3dKernel(KernelContext& ctx, const ConvSizes& s,
                                                             const Geometry3d& g, int64_t image0,
                                                             int64_t images, int64_t z0,
                                                             int64_t slices) {
  const int64_t pixels = slices * g.out_hw();
  const int64_t k_total = s.c_in * g.taps();
  const int64_t elements = images * k_total * pixels;
  if (elements >= (int64_t{1} << 31)) {
    return absl::UnimplementedError(
        absl::StrCat("an im2col matrix of ", elements, " elements is too large to index"));
  }
  const uint32_t elem_bytes = s.dtype == DataType::kFloat16 ? 2 : 4;
  const int64_t words = elem_bytes == 2 ? CeilDiv(elements, 2) : elements;
  constexpr uint32_t kLocal = 256;
  ASSIGN_OR_RETURN(auto pipeline,
                   ctx.GetPipeline("ops/im2col3d", 2, 88, {kLocal, 1, 1},
                                   {elem_bytes, U32(g.kd), U32(g.kh), U32(g.kw), U32(g.sd),
                                    U32(g.sh), U32(g.sw), U32(g.dd), U32(g.dh), U32(g.dw)}));
  PushConstants pc;
  pc.U32(U32(words)).U32(U32(elements)).U32(U32(s.c_in)).U32(U32(g.in_d)).U32(U32(g.in_h));
  pc.U32(U32(g.in_w)).U32(U32(g.out_w)).U32(U32(g.out_hw())).U32(U32(pixels)).U32(U32(z0));
  pc.U32(U32(image0)).I32(static_cast<int32_t>(g.pad_front));
  pc.I32(static_cast<int32_t>(g.pad_top)).I32(static_cast<int32_t>(g.pad_left));
  for (int64_t d : {pixels, k_total, g.out_hw(), g.out_w}) {
    const auto [magic, shift] = Conv3dDivisionMagic(U32(d));
    pc.U32(magic).U32(shift);
  }
  return MakeDispatchKernel({std::move(pipeline),
                             {BufferRef::Input(0), BufferRef::Output(0)},
                             std::move(pc),
                             GroupsFor(static_cast<uint64_t>(words), kLocal, ctx.device())});
}

}  // namespace

uint64_t Im2colScratchLimit(const gpu::DeviceInfo& info) {
  uint64_t limit = std::min(
      {kMaxIm2colBytes, info.max_storage_buffer_range, info.largest_device_local_heap() / 16});
  if (info.max_allocation_size > 0) limit = std::min(limit, info.max_allocation_size);
  return limit;
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateConv3dKernel(KernelContext& ctx, const ConvSizes& s,
                                                           const Window& window, const Epilogue& e,
                                                           int bias_input) {
  if (window.rank() != 3) return absl::InternalError("CreateConv3dKernel needs a 3-D window");
  const Geometry3d g = GeometryOf(window);
  const int residual_input = e.residual != Epilogue::Residual::kNone ? e.residual_input : -1;
  std::vector<Conv3dChunk> chunks;
  if (g.pointwise(window)) {
    // X is B as it is: [batch, c_in, pixels].
    ASSIGN_OR_RETURN(std::unique_ptr<Kernel> product,
                     CreateGemmKernel(ctx, PointwiseProduct(s, s.cin_g, s.batch, g.out_dhw(),
                                                            g.out_dhw(), e, bias_input)));
    std::string description = product->Describe();
    chunks.push_back({nullptr, std::move(product), 0});
    return std::make_unique<Conv3dKernel>(std::move(chunks), 0, residual_input,
                                          std::move(description));
  }
  if (s.dtype != DataType::kFloat && s.dtype != DataType::kFloat16) {
    return absl::UnimplementedError("3-D Conv copies fp32 or fp16 tensors only");
  }
  if (!ctx.device().has_16bit_storage()) {
    return absl::UnimplementedError(
        "3-D Conv's im2col copy needs 16-bit storage buffers, which this device lacks");
  }
  const gpu::DeviceInfo& info = ctx.device().info();
  const uint64_t elem_bytes = DataTypeSize(s.dtype);
  uint64_t limit = Im2colScratchLimit(info);
  if (const Attribute* a = ctx.node().FindAttribute(kIm2colLimitAttr); a != nullptr) {
    if (a->type != Attribute::Type::kInt || a->i <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(kIm2colLimitAttr, " must be a positive integer"));
    }
    limit = std::min(limit, static_cast<uint64_t>(a->i));
  }
  const uint64_t align = std::max<uint64_t>(info.min_storage_buffer_offset_alignment, 16);
  ASSIGN_OR_RETURN(ChunkSize size, PlanChunks(s, g, elem_bytes, limit, align));
  const int64_t k_g = s.cin_g * g.taps();
  const uint64_t matrix_bytes =
      static_cast<uint64_t>(size.images * s.c_in * g.taps() * size.slices * g.out_hw()) *
      elem_bytes;
  const uint32_t matrix = ctx.RequestScratch((matrix_bytes + 3) / 4 * 4);
  std::string product_description;
  for (int64_t image0 = 0; image0 < s.batch; image0 += size.images) {
    const int64_t images = std::min(size.images, s.batch - image0);
    for (int64_t z0 = 0; z0 < g.out_d; z0 += size.slices) {
      const int64_t slices = std::min(size.slices, g.out_d - z0);
      Conv3dChunk chunk;
      ASSIGN_OR_RETURN(chunk.copy, CreateIm2col3dKernel(ctx, s, g, image0, images, z0, slices));
      ASSIGN_OR_RETURN(chunk.product,
                       CreateGemmKernel(ctx, PointwiseProduct(s, k_g, images, slices * g.out_hw(),
                                                              g.out_dhw(), e, bias_input)));
      chunk.y_offset =
          static_cast<uint64_t>(image0 * s.c_out * g.out_dhw() + z0 * g.out_hw()) * elem_bytes;
      if (product_description.empty()) product_description = chunk.product->Describe();
      chunks.push_back(std::move(chunk));
    }
  }
  std::string description = absl::StrCat("im2col3d copy, then ", product_description);
  if (chunks.size() > 1) absl::StrAppend(&description, " (", chunks.size(), " chunks)");
  return std::make_unique<Conv3dKernel>(std::move(chunks), matrix, residual_input,
                                        std::move(description));
}

}  // namespace vkserve
