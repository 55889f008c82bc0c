// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// MatMulProblem and CreateMatMulKernel: the GPU GEMM shared by Gemm and
// MatMul (fp32). An op describes its product as a batch of
// M x K by K x N matrix products with strided, broadcast operands plus an
// epilogue; this file normalizes the description (drops and merges batch
// dims, folds a broadcast B's batch into M, turns N == 1 into M == 1),
// picks a kernel by shape and device limits, and records it:
//
//   - gemv (M <= 8 after normalization): bandwidth-bound streaming of B with
//     a reduction over K inside the workgroup;
//   - matmul_tile_<BM>x<BN>: shared-memory tiled SGEMM with register tiles,
//     the tile chosen by a cost model over padded work and occupancy;
// either one split over K across workgroups (split-K) when the output alone
// cannot fill the device, the partial sums then finished by gemm_reduce.
//
// Pure planning code; the kernel is immutable once created.
#ifndef VKSERVE_RUNTIME_OPS_MATMUL_KERNEL_H_
#define VKSERVE_RUNTIME_OPS_MATMUL_KERNEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/activation.h"
#include "runtime/op.h"

namespace vkserve {

// For every batch index b (over `batch`, outer dim first) and the dense
// output Y of shape [batch..., M, N]:
//
//   Y[b] = epilogue(alpha * op(A[b]) x op(B[b]) + beta * C)
//
// op(A) is M x K, stored densely as [M, K] or, when a_trans, [K, M]; op(B) is
// K x N, stored as [K, N] or, when b_trans, [N, K]. A[b] starts at element
// sum_i b_i * a_batch_strides[i] of node input `a_input` (0 broadcasts), and
// likewise B. C, when present, is node input `c_input`, element (m, n) at
// m * c_stride_m + n * c_stride_n (no batch). The epilogue's residual input
// has Y's shape.
struct MatMulProblem {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  bool a_trans = false;
  bool b_trans = false;
  int a_input = 0;
  int b_input = 1;
  std::vector<int64_t> batch;
  std::vector<int64_t> a_batch_strides;
  std::vector<int64_t> b_batch_strides;
  float alpha = 1.0f;
  float beta = 1.0f;
  int c_input = -1;
  int64_t c_stride_m = 0;
  int64_t c_stride_n = 0;
  Epilogue epilogue;
};

// The kernel computing `problem` into output 0. UNIMPLEMENTED when a size
// exceeds what the shaders index (2^31 elements) or the device's workgroup
// counts.
absl::StatusOr<std::unique_ptr<Kernel>> CreateMatMulKernel(KernelContext& ctx,
                                                           MatMulProblem problem);

// Exposed for tests and benchmarks: how CreateMatMulKernel runs a problem.
struct MatMulChoice {
  std::string shader;  // "ops/gemv" or "ops/matmul_tile_<BM>x<BN>"
  uint32_t splits = 1;
  uint32_t k_chunk = 0;
};
absl::StatusOr<MatMulChoice> ChooseMatMul(const MatMulProblem& normalized,
                                          const gpu::DeviceInfo& info);

// Drops size-1 batch dims, merges batch dims contiguous in both operands,
// folds a batch that only A varies over into M, and rewrites N == 1 as
// M == 1 (Y's bytes are the same). Idempotent.
void NormalizeMatMul(MatMulProblem* problem);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_MATMUL_KERNEL_H_
