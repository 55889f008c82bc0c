// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ActivationOp: the shared implementation of the pointwise activation ops
// (Relu, LeakyRelu, Clip, Sigmoid, HardSigmoid, HardSwish, Tanh, Erf, Gelu,
// QuickGelu) and the unary math ops (Sqrt, Exp, Log, trig, Elu, Softplus, ...): same shape out as
// in, fp32 or fp16 (the ops/unary_f16 variant) on the GPU through shaders/ops/unary.comp, folded on
// the host when the input is a small known tensor. Each op's file names its Activation and, when it
// has parameters (attributes or constant inputs), how to read them; it then fuses into a preceding
// Conv/Gemm/MatMul through OpTraits::epilogue_activation with no op type named anywhere else.
// Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_UNARY_UNARY_OP_H_
#define VKSERVE_RUNTIME_OPS_UNARY_UNARY_OP_H_

#include "runtime/op/activation.h"
#include "runtime/op/op.h"

namespace vkserve {

class ActivationOp : public Op {
 public:
  explicit ActivationOp(Activation kind);
  // traits_ calls back into this op, so it is not copied.
  ActivationOp(const ActivationOp&) = delete;
  ActivationOp& operator=(const ActivationOp&) = delete;

  // Checks that alpha, beta, min and max, where present, are floats.
  absl::Status Validate(const Node& node) const override;
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;
  // The activation it computes fuses into a GEMM's epilogue; every
  // activation has its fp16 form (ops/unary_f16).
  const OpTraits& traits() const override { return traits_; }

 protected:
  // The activation `node` computes. `constant(i)` is the value of input i,
  // present for every host input (IsHostInput) the node has, else null.
  // The default is kind() without parameters.
  virtual absl::StatusOr<ActivationParams> ParamsOf(const Node& node,
                                                    const ConstantInput& constant) const;
  Activation kind() const { return kind_; }

 private:
  // ParamsOf at load, for epilogue fusion: NOT_FOUND when a host input is
  // not a constant.
  absl::StatusOr<ActivationParams> EpilogueParams(const Node& node,
                                                  const ConstantInput& constant) const;
  // ParamsOf at plan time, from the inputs' descriptions; UNIMPLEMENTED when
  // a host input is not known at load.
  absl::StatusOr<ActivationParams> PlannedParams(
      const Node& node, const std::vector<const TensorDesc*>& inputs) const;

  Activation kind_;
  OpTraits traits_;
};

// An activation without parameters (Sqrt, Exp, Sin, ...): its file is one
// registration line naming the kind.
template <Activation kKind>
class ParameterlessActivationOp : public ActivationOp {
 public:
  ParameterlessActivationOp() : ActivationOp(kKind) {}
};

// An activation with one float attribute `alpha` (Elu, Celu, Swish,
// ThresholdedRelu, LeakyRelu): its file is one registration line naming the
// kind (and a subclass where alpha's default is not 1). The default is a
// constructor argument, not a template one: clang 14 (the fuzz build) takes
// no float template arguments.
template <Activation kKind>
class AlphaActivationOp : public ActivationOp {
 public:
  explicit AlphaActivationOp(float default_alpha = 1.0f)
      : ActivationOp(kKind), default_alpha_(default_alpha) {}

 protected:
  absl::StatusOr<ActivationParams> ParamsOf(const Node& node,
                                            const ConstantInput& /*constant*/) const override {
    ActivationParams p;
    p.kind = kKind;
    p.alpha = node.GetFloat("alpha", default_alpha_);
    return p;
  }

 private:
  const float default_alpha_;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_UNARY_UNARY_OP_H_
