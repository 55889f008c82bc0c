// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Erf (opsets 9-27), fp32: an activation (runtime/ops/unary/unary_op.h), so it also
// fuses into a preceding Conv/Gemm/MatMul epilogue. The GLSL erf is in
// shaders/common/activation.glsl. BERT's exact GELU is x * 0.5 * (1 + erf(x /
// sqrt(2))).
#include "runtime/op/op_registry.h"
#include "runtime/ops/unary/unary_op.h"

namespace vkserve {
namespace {

class ErfOp : public ActivationOp {
 public:
  ErfOp() : ActivationOp(Activation::kErf) {}
};

}  // namespace

VKSERVE_REGISTER_OP("", "Erf", 9, 27, ErfOp);

}  // namespace vkserve
