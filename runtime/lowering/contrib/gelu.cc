// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Gelu (com.microsoft): ONNX Runtime's exact Gelu, x * (1 + erf(x / sqrt(2)))
// / 2, which its GeluFusion writes for the Div/Erf/Add/Mul/Mul pattern in
// models of any opset. It becomes ONNX's Gelu (opset 20, approximate
// "none"), an activation that fuses into a preceding MatMul.
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

class ContribGeluRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (stored.inputs.size() != 1 || ctx.input(0).empty() || stored.outputs.size() != 1) {
      return absl::InvalidArgumentError("Gelu takes one input and one output");
    }
    ctx.AddNode("Gelu", stored.inputs, stored.outputs, /*opset=*/20);
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("com.microsoft", "Gelu", 1, 1, ContribGeluRewrite);

}  // namespace vkserve
