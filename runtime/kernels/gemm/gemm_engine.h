// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The GEMM engine shared by Conv, Gemm, MatMul and Einsum (fp32): an op
// describes its product as a GemmProblem — a batch of M x K by K x N
// products whose operands are strided matrices (B may instead be Conv's
// implicit im2col view of an NCHW image batch), an epilogue, and where the
// result lands — and CreateGemmKernel does the rest: normalizes the
// description (drops and merges batch dims, folds a broadcast B's batch into
// M, turns N == 1 into M == 1), picks a kernel and K split (gemm_plan.h),
// and records it:
//
//   - ops/gemm_<BM>x<BN>[_im2col]: the tiled core (shaders/gemm/gemm_tile.glsl)
//     with B's loader chosen at build time;
//   - ops/gemm_cm_<BM>x<BN>_<M>x<N>x<K>[_im2col]: the tensor-core core
//     (shaders/gemm/gemm_coopmat.glsl) at FP16 precision, where the device
//     reports that matrix shape ("_acc16": fp16 sums, where asked for and
//     the device reports the shape with an fp16 result);
//   - ops/gemv (M <= 8, matrix B): bandwidth-bound streaming of B;
// either one split over K across workgroups when the output alone cannot
// fill the device, the partial sums then finished by ops/gemm_reduce. Every
// path applies the same epilogue (shaders/gemm/gemm_epilogue.glsl).
//
// Pure planning code; the kernel is immutable once created.
#ifndef VKSERVE_RUNTIME_KERNELS_GEMM_GEMM_ENGINE_H_
#define VKSERVE_RUNTIME_KERNELS_GEMM_GEMM_ENGINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/kernels/gemm/conv_geometry.h"
#include "runtime/kernels/gemm/gemm_plan.h"
#include "runtime/op/activation.h"
#include "runtime/op/op.h"

namespace vkserve {

// B as Conv's implicit im2col matrix: per batch index z (the group), element
// (k, col) with k = (channel, ky, kx) and col = (image, oy, ox) is the
// window's input pixel of NCHW X, zero in the padding. The group's first
// channel is b_batch_strides[0] * z elements in; images are image_stride
// elements apart.
//
// nhwc: X is channels-last ([N, H, W, C], one group) and k = (ky, kx,
// channel), so 8 consecutive k are 8 channels of one tap; the channel count
// (K / taps) must be a multiple of 8 and X 16-byte aligned (fp16 tensors,
// tensor-core tiles only: GemmOperandKind::kNhwc). image_stride and
// pointwise are then unused; pair it with an output view of n_inner 1.
struct Im2colView {
  Window2D window;
  int64_t image_stride = 0;
  bool pointwise = false;  // 1x1, stride 1, no pads: op(B) is X's [K, pixels]
  bool nhwc = false;
};

// Where product element (z, row, col) lands in the output: col splits into
// (image, pixel) = (col / n_inner, col % n_inner) and the element is at
// z * batch_stride + row * m_stride + image * image_stride + pixel.
struct OutputView {
  int64_t n_inner = 0;
  int64_t batch_stride = 0;
  int64_t m_stride = 0;
  int64_t image_stride = 0;
};

// For every batch index z (over `batch`, outer dim first):
//
//   Y[z] = epilogue(alpha * op(A[z]) x op(B[z]) + beta * C)
//
// op(A) is M x K, stored densely as [M, K] or, when a_trans, [K, M]; op(B) is
// K x N, stored as [K, N] or, when b_trans, [N, K], or read through
// `b_im2col`. A[z] starts at element sum_i z_i * a_batch_strides[i] of node
// input `a_input` (0 broadcasts), and likewise B. C, when present, is node
// input `c_input`, element (z, m, n) at z * c_stride_batch + m * c_stride_m +
// n * c_stride_n (z flattened). Y is output 0: dense [batch..., M, N] unless
// `output` says otherwise; the epilogue's residual input has Y's layout.
struct GemmProblem {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  bool a_trans = false;
  bool b_trans = false;
  int a_input = 0;
  int b_input = 1;
  // Row strides of A and B as stored, in elements; 0: dense (K or M for A,
  // N or K for B). Set, they keep NormalizeGemm to batch dims alone
  // (attention reads Q, K and V rows out of [B, S, H * E] tensors).
  int64_t lda = 0;
  int64_t ldb = 0;
  std::vector<int64_t> batch;
  std::vector<int64_t> a_batch_strides;
  std::vector<int64_t> b_batch_strides;
  std::optional<Im2colView> b_im2col;
  float alpha = 1.0f;
  float beta = 1.0f;
  int c_input = -1;
  int64_t c_stride_m = 0;
  int64_t c_stride_n = 0;
  int64_t c_stride_batch = 0;
  std::optional<OutputView> output;
  Epilogue epilogue;
  // kFp16: operands rounded to fp16, fp32 sums (tensor cores where the
  // device has them). CreateGemmKernel takes it from the node
  // (GetPrecision), as a load-time pass recorded it.
  Precision precision = Precision::kFp32;
  // kFp16 (with kFp16 precision): fp16 sums where a kernel offers them
  // (gemm_plan.h); taken from the node (GetAccumulation) like precision.
  Accumulation accumulation = Accumulation::kFp32;
  // The tensors' element type, kFloat or kFloat16 (every operand, C, the
  // residual and Y alike; sums in fp32 either way).
  DataType dtype = DataType::kFloat;
  // With dtype kFloat: B alone is float16 (FP16 precision stores constant
  // weights so, runtime/passes/fp16_weights.h). Matrix B only.
  bool b_f16 = false;
};

// The kernel computing `problem` for the node of `ctx` (whose
// kGemmPlanAttr, when set, pins the plan). UNIMPLEMENTED when a size exceeds
// what the shaders index (2^31 elements), the device's workgroup counts, or
// more than 3 batch dims remain after normalization.
absl::StatusOr<std::unique_ptr<Kernel>> CreateGemmKernel(KernelContext& ctx, GemmProblem problem);

// Drops size-1 batch dims, merges batch dims contiguous in both operands,
// folds a batch that only A varies over into M, and rewrites N == 1 as
// M == 1 (Y's bytes are the same). Only for matrix operands with a dense
// output; idempotent.
void NormalizeGemm(GemmProblem* problem);

// The plan CreateGemmKernel would choose for a normalized problem (tests and
// benchmarks).
absl::StatusOr<GemmPlan> ChooseGemm(const GemmProblem& normalized, const gpu::DeviceInfo& info);

// The plan CreateGemmKernel(ctx, problem) would run for `node` (its pinned
// plan, else the cost model's), for ops choosing between formulations.
absl::StatusOr<GemmPlan> PlanGemmFor(const Node& node, GemmProblem problem,
                                     const gpu::DeviceInfo& info);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_GEMM_GEMM_ENGINE_H_
