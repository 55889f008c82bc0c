// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BiasGelu (com.microsoft): Gelu(A + bias), exact (erf) Gelu, with bias
// broadcast along A's last dim — ONNX Runtime's BiasGeluFusion of
// Add(bias) -> Gelu after a transformer's FFN MatMul. It becomes Add and ONNX
// Gelu (opset 20), which the epilogue fusion merges back into that MatMul:
// bias added and Gelu applied in the GEMM's store.
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

class BiasGeluRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (stored.inputs.size() != 2 || ctx.input(0).empty() || ctx.input(1).empty() ||
        stored.outputs.size() != 1) {
      return absl::InvalidArgumentError("BiasGelu takes inputs A and bias and one output");
    }
    const std::string sum = ctx.NewValueName("biased");
    ctx.AddNode("Add", {ctx.input(0), ctx.input(1)}, {sum}, /*opset=*/14);
    ctx.AddNode("Gelu", {sum}, stored.outputs, /*opset=*/20);
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("com.microsoft", "BiasGelu", 1, 1, BiasGeluRewrite);

}  // namespace vkserve
