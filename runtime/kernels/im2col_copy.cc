// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/kernels/im2col_copy.h"

#include <array>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

// (magic, shift) for the shader's FastDiv by `d` (1 <= d < 2^31) of
// numerators below 2^31: with l = ceil(log2 d), magic = ceil(2^(31 + l) / d)
// fits 32 bits and (n * magic) >> (31 + l) == n / d for every such n (the
// rounding error n * (magic - 2^(31 + l) / d) / 2^(31 + l) stays under 1 / d).
// d == 1 is magic 0 (the shader returns n).
std::pair<uint32_t, uint32_t> DivisionMagic(uint32_t d) {
  if (d <= 1) return {0, 0};
  uint32_t l = 0;
  while ((uint64_t{1} << l) < d) ++l;
  const uint64_t magic = ((uint64_t{1} << (31 + l)) + d - 1) / d;
  return {static_cast<uint32_t>(magic), l - 1};
}

// Elements of the im2col matrix of `batch` images of `c_in` channels.
int64_t Im2colElements(int64_t batch, int64_t c_in, const Window2D& g) {
  return batch * c_in * g.kernel_h * g.kernel_w * int64_t{g.out_h} * g.out_w;
}

}  // namespace

uint64_t Im2colBytes(DataType dtype, int64_t batch, int64_t c_in, const Window2D& g) {
  const uint64_t bytes =
      static_cast<uint64_t>(Im2colElements(batch, c_in, g)) * DataTypeSize(dtype);
  return (bytes + 3) / 4 * 4;
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateIm2colCopyKernel(KernelContext& ctx, DataType dtype,
                                                               int64_t batch, int64_t c_in,
                                                               const Window2D& g) {
  if (dtype != DataType::kFloat && dtype != DataType::kFloat16) {
    return absl::UnimplementedError("im2col copies fp32 or fp16 tensors only");
  }
  // The shader reads fp16 elements one by one (shaders/gemm/im2col.comp).
  if (!ctx.device().has_16bit_storage()) {
    return absl::UnimplementedError(
        "the im2col copy needs 16-bit storage buffers, which this device lacks");
  }
  const int64_t elements = Im2colElements(batch, c_in, g);
  const int64_t input_elements = batch * c_in * int64_t{g.in_h} * g.in_w;
  if (elements >= (int64_t{1} << 31) || input_elements >= (int64_t{1} << 31)) {
    return absl::UnimplementedError(
        absl::StrCat("an im2col matrix of ", elements, " elements is too large to index"));
  }
  const uint32_t elem_bytes = dtype == DataType::kFloat16 ? 2 : 4;
  const int64_t words = elem_bytes == 2 ? CeilDiv(elements, 2) : elements;
  constexpr uint32_t kLocal = 256;
  ASSIGN_OR_RETURN(auto pipeline,
                   ctx.GetPipeline("ops/im2col", 2, 60, {kLocal, 1, 1},
                                   {elem_bytes, U32(g.kernel_h), U32(g.kernel_w), U32(g.stride_h),
                                    U32(g.stride_w), U32(g.dilation_h), U32(g.dilation_w)}));
  PushConstants pc;
  pc.U32(U32(words)).U32(U32(elements)).U32(U32(c_in)).U32(U32(g.in_h)).U32(U32(g.in_w));
  pc.U32(U32(g.out_w)).U32(U32(int64_t{g.out_h} * g.out_w)).I32(g.pad_top).I32(g.pad_left);
  for (int64_t d : {int64_t{g.out_h} * g.out_w, c_in * g.kernel_h * g.kernel_w, int64_t{g.out_w}}) {
    const auto [magic, shift] = DivisionMagic(U32(d));
    pc.U32(magic).U32(shift);
  }
  return MakeDispatchKernel({std::move(pipeline),
                             {BufferRef::Input(0), BufferRef::Output(0)},
                             std::move(pc),
                             GroupsFor(static_cast<uint64_t>(words), kLocal, ctx.device())});
}

}  // namespace vkserve
