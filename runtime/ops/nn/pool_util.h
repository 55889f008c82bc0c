// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The pooling ops, shared by their registration files: WindowPoolOp is
// MaxPool / AveragePool / LpPool over 1-D, 2-D and 3-D windows (pool.comp), GlobalPoolOp is
// GlobalAveragePool / GlobalMaxPool over any number of spatial dimensions
// (global_pool.comp). fp32 only. Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_NN_POOL_UTIL_H_
#define VKSERVE_RUNTIME_OPS_NN_POOL_UTIL_H_

#include <memory>

#include "runtime/op/op.h"

namespace vkserve {

enum class PoolKind { kMax, kAverage, kLp };  // kLp: (sum |x|^p)^(1/p)

class WindowPoolOp : public Op {
 public:
  explicit WindowPoolOp(PoolKind kind) : kind_(kind) {}
  absl::Status Validate(const Node& node) const override;
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;
  // fp32 or fp16 tensors (the arithmetic in fp32).
  const OpTraits& traits() const override {
    static const OpTraits kTraits{.float16 = Float16Use::kComputes};
    return kTraits;
  }

 private:
  PoolKind kind_;
};

class GlobalPoolOp : public Op {
 public:
  explicit GlobalPoolOp(PoolKind kind) : kind_(kind) {}
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;
  // fp32 or fp16 tensors (the sums in fp32).
  const OpTraits& traits() const override {
    static const OpTraits kTraits{.float16 = Float16Use::kComputes};
    return kTraits;
  }

 private:
  PoolKind kind_;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_NN_POOL_UTIL_H_
