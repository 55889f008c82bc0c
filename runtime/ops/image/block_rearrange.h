// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BlockRearrangeOp: the shared implementation of DepthToSpace and
// SpaceToDepth on [N, C, H, W] of any element type: a reshape to 6-D, a
// transpose and a reshape back, which is one strided copy
// (runtime/kernels/strided_copy.h), folded on the host for small known inputs.
// Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_IMAGE_BLOCK_REARRANGE_H_
#define VKSERVE_RUNTIME_OPS_IMAGE_BLOCK_REARRANGE_H_

#include "runtime/op/op.h"

namespace vkserve {

class BlockRearrangeOp : public Op {
 public:
  explicit BlockRearrangeOp(bool depth_to_space) : depth_to_space_(depth_to_space) {}

  absl::Status Validate(const Node& node) const override;
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;

 private:
  const bool depth_to_space_;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_IMAGE_BLOCK_REARRANGE_H_
