// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// FastGelu (com.microsoft): the tanh approximation of Gelu,
// x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2 with x = X + bias
// (bias optional, along X's last dim) — ONNX Runtime's FastGeluFusion of
// GPT-2's Gelu. It becomes [Add and] ONNX Gelu (opset 20, approximate
// "tanh"), which the epilogue fusion merges into a preceding MatMul.
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

class FastGeluRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (stored.inputs.empty() || stored.inputs.size() > 2 || ctx.input(0).empty() ||
        stored.outputs.size() != 1) {
      return absl::InvalidArgumentError("FastGelu takes input X, an optional bias and one output");
    }
    std::string x = ctx.input(0);
    if (!ctx.input(1).empty()) {
      x = ctx.NewValueName("biased");
      ctx.AddNode("Add", {ctx.input(0), ctx.input(1)}, {x}, /*opset=*/14);
    }
    Node& gelu = ctx.AddNode("Gelu", {x}, stored.outputs, /*opset=*/20);
    gelu.attributes["approximate"] = StringAttribute("tanh");
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("com.microsoft", "FastGelu", 1, 1, FastGeluRewrite);

}  // namespace vkserve
