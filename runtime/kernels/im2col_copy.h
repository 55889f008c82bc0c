// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The im2col matrix of a 2-D convolution written out once
// (shaders/gemm/im2col.comp): for input X [batch, c_in, in_h, in_w] and
// window `g`, the tensor M [batch, c_in * kh * kw, out_h, out_w] with
//   M[n][(ci * kh + ky) * kw + kx][oy][ox] = X[n][ci][oy * sh + ky * dh - pad_top][ox * sw + kx *
//   dw - pad_left]
// and 0 where the window leaves X. A convolution is then the pointwise
// product of W (as [c_out, c_in * kh * kw]) with M, whose loader reads
// contiguous rows instead of gathering each element through the implicit
// im2col view (runtime/ops/nn/conv.cc says when that pays).
//
// The kernel reads node input 0 (X) and writes node output 0 (M); bits are
// moved, so it serves fp32 and fp16 alike. Immutable once created.
#ifndef VKSERVE_RUNTIME_KERNELS_IM2COL_COPY_H_
#define VKSERVE_RUNTIME_KERNELS_IM2COL_COPY_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "runtime/kernels/gemm/conv_geometry.h"
#include "runtime/op/op.h"

namespace vkserve {

// The bytes the kernel writes for the im2col matrix of `batch` images of
// `c_in` channels: its elements rounded up to whole 32-bit words (an odd
// count of fp16 elements ends in a half-used word). The destination must
// hold this many.
uint64_t Im2colBytes(DataType dtype, int64_t batch, int64_t c_in, const Window2D& g);

// The copy kernel. UNIMPLEMENTED when M or X has 2^31 elements or more,
// `dtype` is neither kFloat nor kFloat16, or the device lacks 16-bit
// storage buffers.
absl::StatusOr<std::unique_ptr<Kernel>> CreateIm2colCopyKernel(KernelContext& ctx, DataType dtype,
                                                               int64_t batch, int64_t c_in,
                                                               const Window2D& g);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_IM2COL_COPY_H_
