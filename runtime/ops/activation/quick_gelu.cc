// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// QuickGelu (com.microsoft, opset 1), fp32: ONNX Runtime's x * sigmoid(alpha
// * x) (alpha default 1.702, the CLIP/OpenAI approximation of Gelu), which its
// optimizer fuses from Mul/Sigmoid/Mul. An activation
// (runtime/ops/unary/unary_op.h), so it also fuses into a preceding
// Conv/Gemm/MatMul epilogue.
#include "runtime/op/op_registry.h"
#include "runtime/ops/unary/unary_op.h"

namespace vkserve {
namespace {

class QuickGeluOp : public ActivationOp {
 public:
  QuickGeluOp() : ActivationOp(Activation::kQuickGelu) {}

 protected:
  absl::StatusOr<ActivationParams> ParamsOf(const Node& node,
                                            const ConstantInput& /*constant*/) const override {
    ActivationParams p;
    p.kind = Activation::kQuickGelu;
    p.alpha = node.GetFloat("alpha", 1.702f);
    return p;
  }
};

}  // namespace

VKSERVE_REGISTER_OP("com.microsoft", "QuickGelu", 1, 1, QuickGeluOp);

}  // namespace vkserve
