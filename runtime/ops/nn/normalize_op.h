// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// NormalizeOp: the shared implementation of InstanceNormalization,
// GroupNormalization (per-group scale/bias at opset 18, per-channel from 21),
// MeanVarianceNormalization and LpNormalization, fp32 on the GPU through
// shaders/nn/normalize.comp: each op names which dims of its input form one
// normalized set; neighbouring dims are merged as in the Reduce* ops.
// Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_NN_NORMALIZE_OP_H_
#define VKSERVE_RUNTIME_OPS_NN_NORMALIZE_OP_H_

#include "runtime/op/op.h"

namespace vkserve {

class NormalizeOp : public Op {
 public:
  enum class Kind { kInstance, kGroup, kMeanVariance, kLp };
  explicit NormalizeOp(Kind kind) : kind_(kind) {}

  absl::Status Validate(const Node& node) const override;
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;

 private:
  const Kind kind_;
};

template <NormalizeOp::Kind kKind>
class NormalizeKindOp : public NormalizeOp {
 public:
  NormalizeKindOp() : NormalizeOp(kKind) {}
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_NN_NORMALIZE_OP_H_
