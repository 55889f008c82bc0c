// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LossOp: the shared implementation of NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss (the latter a log-softmax over axis 1 first, its
// result also output 1 when asked for): fp32 inputs [N, C, d1, ...], int64
// targets [N, d1, ...], optional per-class weights, ignore_index, and
// reduction none / sum / mean (the weighted mean over elements not ignored).
// On the GPU through shaders/ops/softmax.comp and shaders/nn/nll_loss.comp.
// Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_NN_NLL_LOSS_OP_H_
#define VKSERVE_RUNTIME_OPS_NN_NLL_LOSS_OP_H_

#include "runtime/op/op.h"

namespace vkserve {

class LossOp : public Op {
 public:
  explicit LossOp(bool softmax_first) : softmax_first_(softmax_first) {}

  absl::Status Validate(const Node& node) const override;
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;

 private:
  const bool softmax_first_;  // SoftmaxCrossEntropyLoss
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_NN_NLL_LOSS_OP_H_
