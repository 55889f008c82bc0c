// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/reduction/reduction_layout.h"

#include "absl/strings/str_cat.h"

namespace vkserve {

void ReductionLayout::Push(PushConstants& push) const {
  push.U32(static_cast<uint32_t>(outputs)).U32(static_cast<uint32_t>(reduced));
  push.U32(static_cast<uint32_t>(kept_dims.size())).U32(static_cast<uint32_t>(reduced_dims.size()));
  for (size_t i = 0; i < kMaxKept; ++i) push.U32(i < kept_dims.size() ? kept_dims[i] : 1);
  for (size_t i = 0; i < kMaxKept; ++i) push.U32(i < kept_strides.size() ? kept_strides[i] : 0);
  for (size_t i = 0; i < kMaxReduced; ++i) push.U32(i < reduced_dims.size() ? reduced_dims[i] : 1);
  for (size_t i = 0; i < kMaxReduced; ++i) {
    push.U32(i < reduced_strides.size() ? reduced_strides[i] : 0);
  }
}

absl::StatusOr<ReductionLayout> MergeReductionDims(const std::vector<int64_t>& shape,
                                                   const std::vector<bool>& reduced,
                                                   const std::string& what) {
  std::vector<int64_t> dims;
  std::vector<bool> red;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!dims.empty() && red.back() == reduced[d]) {
      dims.back() *= shape[d];
    } else {
      dims.push_back(shape[d]);
      red.push_back(reduced[d]);
    }
  }
  const std::vector<int64_t> strides = Strides(dims);
  ReductionLayout l;
  for (size_t d = 0; d < dims.size(); ++d) {
    (red[d] ? l.reduced_dims : l.kept_dims).push_back(static_cast<uint32_t>(dims[d]));
    (red[d] ? l.reduced_strides : l.kept_strides).push_back(static_cast<uint32_t>(strides[d]));
    (red[d] ? l.reduced : l.outputs) *= static_cast<uint64_t>(dims[d]);
  }
  if (l.kept_dims.size() > ReductionLayout::kMaxKept ||
      l.reduced_dims.size() > ReductionLayout::kMaxReduced) {
    return absl::UnimplementedError(
        absl::StrCat(what, " ", ShapeString(shape), " alternates kept and reduced dims too often"));
  }
  l.inner_kept = !red.empty() && !red.back();
  return l;
}

}  // namespace vkserve
