// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ReductionLayout: a tensor's dims split into kept and reduced ones as the
// reduce and normalize shaders (shaders/ops/reduce.comp, normalize.comp)
// index them — neighbouring dims of one class merged (size-1 dims join
// either), at most kMaxKept kept and kMaxReduced reduced dims, each with its
// size and row-major stride. Shared by ReduceOp and NormalizeOp. Plain data;
// thread-compatible.
#ifndef VKSERVE_RUNTIME_OPS_REDUCTION_REDUCTION_LAYOUT_H_
#define VKSERVE_RUNTIME_OPS_REDUCTION_REDUCTION_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/op/op_util.h"

namespace vkserve {

struct ReductionLayout {
  static constexpr size_t kMaxKept = 3;
  static constexpr size_t kMaxReduced = 6;

  std::vector<uint32_t> kept_dims, kept_strides;
  std::vector<uint32_t> reduced_dims, reduced_strides;
  uint64_t outputs = 1;     // product of the kept dims
  uint64_t reduced = 1;     // product of the reduced dims
  bool inner_kept = false;  // the innermost merged dim is kept

  // Appends the shaders' common push constants: outputs, reduced, the two
  // counts, then the kept and reduced dims and strides padded to the maxima.
  void Push(PushConstants& push) const;
};

// `shape` with `reduced[d]` marking the reduced dims. UNIMPLEMENTED, saying
// `what` ("reducing", "normalizing") of the shape, when the merged dims
// exceed the maxima.
absl::StatusOr<ReductionLayout> MergeReductionDims(const std::vector<int64_t>& shape,
                                                   const std::vector<bool>& reduced,
                                                   const std::string& what);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_REDUCTION_REDUCTION_LAYOUT_H_
