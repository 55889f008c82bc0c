// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// StridedCopy: the one data-movement primitive behind Transpose, Concat,
// Split, Slice and Expand (and the large-constant paths of ConstantOfShape
// and Range). A copy walks every index (i_0, ..., i_{r-1}) of `shape` and
// moves one element:
//
//   dst[dst_base + sum_k i_k * dst_strides[k]] = src[src_base + sum_k i_k * src_strides[k]]
//
// with offsets and strides in elements (strides may be 0 to broadcast, or
// negative to reverse). The same description runs on the host (folding) and
// on the GPU (shaders/ops/copy_strided.comp), where it is dtype-agnostic:
// elements of 1, 2, 4 or 8 bytes are moved as bits, and contiguous runs are
// widened to 8- or 16-byte units. Copies that read along one dim and write
// along another (transposes of 4- and 8-byte types) go through 32 x 32 tiles
// in shared memory instead (shaders/ops/transpose.comp), so that both sides
// stay coalesced; 2-byte types through 32 x 64 tiles written a word of two
// elements at a time (shaders/ops/transpose_half.comp) where every
// destination row is whole words, else element by element with atomics.
//
// Plain data and pure functions; the kernel is immutable once created.
#ifndef VKSERVE_RUNTIME_KERNELS_STRIDED_COPY_H_
#define VKSERVE_RUNTIME_KERNELS_STRIDED_COPY_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"
#include "runtime/op/op.h"

namespace vkserve {

struct StridedCopy {
  // Where the bytes come from and go when recorded on the GPU.
  enum class Source { kInput, kConstant };
  Source source = Source::kInput;
  int src_index = 0;  // node input, or KernelContext::AddConstant index
  int dst_index = 0;  // node output

  std::vector<int64_t> shape;
  std::vector<int64_t> src_strides;
  std::vector<int64_t> dst_strides;
  int64_t src_base = 0;
  int64_t dst_base = 0;

  int64_t num_elements() const;

  // Drops size-1 dims and merges dims that are contiguous in both source and
  // destination. The set of moved elements does not change.
  void Simplify();

  // Runs the copy on the host. REQUIRES: src and dst have the same dtype and
  // every addressed element exists.
  void RunOnHost(const HostTensor& src, HostTensor* dst) const;
};

// Copies of common shapes. `shape` is the source's shape.
// The whole of a contiguous tensor of n elements.
StridedCopy ContiguousCopy(int64_t n);
// Transpose: output dim k is input dim perm[k]; destination contiguous.
StridedCopy TransposeCopy(const std::vector<int64_t>& shape, const std::vector<int64_t>& perm);
// Broadcast `shape` up to `out_shape` (numpy rules); destination contiguous.
StridedCopy BroadcastCopy(const std::vector<int64_t>& shape, const std::vector<int64_t>& out_shape);

// Element strides for broadcasting a tensor of `shape` over `out_shape`
// (0 where broadcast). REQUIRES: the shapes broadcast.
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& shape,
                                      const std::vector<int64_t>& out_shape);

// Drops size-1 dims and merges adjacent dims along which every operand's
// strides are contiguous (stride[k] == stride[k+1] * shape[k+1]). Used for
// broadcasting kernels with several inputs.
void SimplifyStrides(std::vector<int64_t>* shape,
                     const std::vector<std::vector<int64_t>*>& strides);

// Round `size` up to whole 32-bit words: shaders address sub-word types
// through words, and tensor offsets are at least 4-byte aligned.
gpu::BufferRange WordRange(const gpu::BufferRange& range);

// A kernel that runs `copies` in order, one dispatch each (copies of zero
// elements are skipped). UNIMPLEMENTED for element sizes other than 1, 2, 4
// and 8 bytes, or more than 8 dims after simplification.
absl::StatusOr<std::unique_ptr<Kernel>> CreateStridedCopyKernel(KernelContext& ctx, DataType dtype,
                                                                std::vector<StridedCopy> copies);

// UNIMPLEMENTED unless the GPU kernels can move elements of `dtype`.
absl::Status CheckMovableType(DataType dtype);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_STRIDED_COPY_H_
