// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SkipLayerNormalization and SkipSimplifiedLayerNormalization
// (com.microsoft): ONNX Runtime's fusion of a transformer layer's residual
// Add(s) with the LayerNormalization (or RMSNorm) after it.
//
//   sum = input + skip (+ bias)        input [B, S, H] or [S, H]; skip the
//                                      same, or broadcast over the batch
//   output = LayerNorm(sum) over the last axis, * gamma (+ beta)
//
// Inputs: input, skip, gamma, beta (SkipLayerNormalization only), bias —
// beta and bias optional, each of shape [H] (bias is input 4, or input 3 of
// the simplified op, which has no beta). Outputs: output, mean, inv_std_var,
// input_skip_bias_sum (all but the first optional). Attribute epsilon
// (default 1e-12). The simplified op normalizes by the root mean square and
// its mean output reads 0, as onnxruntime's does.
//
// The node becomes Add(s) and LayerNormalization (opset 17, axis -1; with
// _vkserve_rms for the simplified op), the sum named as the stored
// input_skip_bias_sum when that is used. The bias is added first: after a
// MatMul, the epilogue fusion then folds bias and skip into the GEMM's store
// (a bias Add, then a residual Add).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"
#include "runtime/ops/nn/layer_normalization.h"

namespace vkserve {
namespace {

constexpr float kSkipLayerNormalizationDefaultEpsilon = 1e-12f;

class SkipLayerNormRewriteBase : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    const size_t max_inputs = simplified() ? 4 : 5;
    if (stored.inputs.size() < 3 || stored.inputs.size() > max_inputs || ctx.input(0).empty() ||
        ctx.input(1).empty() || ctx.input(2).empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("takes inputs input, skip and gamma, then optional ",
                       simplified() ? "bias" : "beta and bias"));
    }
    if (stored.outputs.empty() || stored.outputs.size() > 4 || ctx.output(0).empty()) {
      return absl::InvalidArgumentError("has output 'output' and up to three optional outputs");
    }
    RETURN_IF_ERROR(CheckRewriteAttribute(stored, "epsilon", Attribute::Type::kFloat));
    const float epsilon = stored.GetFloat("epsilon", kSkipLayerNormalizationDefaultEpsilon);
    if (!(epsilon >= 0.0f)) return absl::InvalidArgumentError("epsilon must be >= 0");

    // sum = (input + bias) + skip, named as the stored sum output if any.
    const std::string& bias = ctx.input(simplified() ? 3 : 4);
    const std::string sum =
        ctx.output(3).empty() ? ctx.NewValueName("input_skip_bias_sum") : ctx.output(3);
    std::string x = ctx.input(0);
    if (!bias.empty()) {
      const std::string biased = ctx.NewValueName("input_bias");
      ctx.AddNode("Add", {x, bias}, {biased}, /*opset=*/14);
      x = biased;
    }
    ctx.AddNode("Add", {x, ctx.input(1)}, {sum}, /*opset=*/14);

    std::vector<std::string> ln_inputs = {sum, ctx.input(2)};
    if (!simplified() && !ctx.input(3).empty()) ln_inputs.push_back(ctx.input(3));
    Node& ln = ctx.AddNode("LayerNormalization", std::move(ln_inputs),
                           {ctx.output(0), ctx.output(1), ctx.output(2)}, /*opset=*/17);
    ln.attributes["axis"] = IntAttribute(-1);
    ln.attributes["epsilon"] = FloatAttribute(epsilon);
    if (simplified()) ln.attributes[kLayerNormRmsAttr] = IntAttribute(1);
    while (!ln.outputs.empty() && ln.outputs.back().empty()) ln.outputs.pop_back();
    return absl::OkStatus();
  }

 protected:
  virtual bool simplified() const = 0;
};

class SkipLayerNormRewrite : public SkipLayerNormRewriteBase {
 protected:
  bool simplified() const override { return false; }
};

class SkipSimplifiedLayerNormRewrite : public SkipLayerNormRewriteBase {
 protected:
  bool simplified() const override { return true; }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("com.microsoft", "SkipLayerNormalization", 1, 1, SkipLayerNormRewrite);
VKSERVE_REGISTER_REWRITE("com.microsoft", "SkipSimplifiedLayerNormalization", 1, 1,
                         SkipSimplifiedLayerNormRewrite);

}  // namespace vkserve
