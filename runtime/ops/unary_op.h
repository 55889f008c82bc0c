// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ActivationOp: the shared implementation of the pointwise activation ops
// (Relu, LeakyRelu, Clip, Sigmoid, HardSigmoid, HardSwish, Tanh): same shape
// out as in, fp32 on the GPU through shaders/ops/unary.comp, folded on the
// host when the input is a small known tensor. Each op's file only names it
// and registers it. Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_UNARY_OP_H_
#define VKSERVE_RUNTIME_OPS_UNARY_OP_H_

#include "runtime/activation.h"
#include "runtime/op.h"

namespace vkserve {

class ActivationOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override;
  // Clip's min and max (opset >= 11) are read on the host.
  bool IsHostInput(const Node& node, size_t input_index) const override;
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;

 private:
  absl::StatusOr<ActivationParams> Params(const Node& node, const TensorDesc* min,
                                          const TensorDesc* max) const;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_UNARY_OP_H_
