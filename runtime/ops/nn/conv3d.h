// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// 3-D Conv (NCDHW) on the GEMM engine, for conv.cc. Every group's product
//   Y[image][g * cout_g + m][pixel] = sum_k W[g * cout_g + m][k] * M[image][g * k_g + k][pixel]
// runs as the engine's pointwise product (plain rows of B: tensor cores at
// FP16 where the device has them), with B either
//   - X itself, for a 1x1x1 window with stride 1 and no pads; or
//   - the im2col matrix M [images, c_in * kd * kh * kw, pixels] written into
//     scratch by shaders/gemm/im2col3d.comp (a strided copy of the pixels for
//     a strided 1x1x1). Where M exceeds Im2colScratchLimit, it is written
//     and multiplied in chunks of whole images, or of whole output depth
//     slices of one image, each product storing into its part of Y.
// Groups and depthwise are the engine's batch dim; bias and the fused
// epilogue (activation, residual) are the engine's.
//
// Pure planning code; the kernel is immutable once created.
#ifndef VKSERVE_RUNTIME_OPS_NN_CONV3D_H_
#define VKSERVE_RUNTIME_OPS_NN_CONV3D_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "gpu/device_info.h"
#include "runtime/kernels/gemm/conv_geometry.h"
#include "runtime/op/activation.h"
#include "runtime/op/op.h"

namespace vkserve {

// The sizes of one Conv at one signature.
struct ConvSizes {
  DataType dtype = DataType::kFloat;  // every tensor's: kFloat or kFloat16
  int64_t batch = 0, c_in = 0, c_out = 0, group = 1, cin_g = 0, cout_g = 0;
};

// The largest im2col matrix a Conv writes out: it must fit one binding and
// one allocation, be at most 512 MiB and take at most a sixteenth of the
// largest device-local heap, so that a smaller GPU does not run out of memory.
uint64_t Im2colScratchLimit(const gpu::DeviceInfo& info);

// The node attribute lowering that limit for one 3-D Conv (a positive
// number of bytes; tests reach the chunked path with it). Not
// "_vkserve_"-prefixed: a model may set it, so it is untrusted like the rest
// of the model, and it can only lower the device's limit.
inline constexpr char kIm2colLimitAttr[] = "vkserve_im2col_limit";

// The kernel of a Conv over the 3-D `window` (node input 0 X, 1 W, input
// `bias_input` B or -1, the epilogue's residual input; output 0 Y).
// UNIMPLEMENTED when one output depth slice's im2col matrix exceeds the
// scratch limit, or no chunking keeps the output's parts aligned as the
// device requires.
absl::StatusOr<std::unique_ptr<Kernel>> CreateConv3dKernel(KernelContext& ctx, const ConvSizes& s,
                                                           const Window& window, const Epilogue& e,
                                                           int bias_input);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_NN_CONV3D_H_
