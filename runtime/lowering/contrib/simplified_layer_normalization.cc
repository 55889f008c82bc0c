// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// RMSNorm as ONNX Runtime writes it — SimplifiedLayerNormalization, which it
// registers in the ONNX domain at since_version 1 (LLaMA-style models, its
// SimplifiedLayerNormFusion) — and as ONNX 23 defines it, RMSNormalization:
//
//   Y = X / sqrt(mean(X^2 over axes [axis, rank)) + epsilon) * scale
//
// Inputs X and scale; attributes axis (default -1), epsilon (1e-5) and
// stash_type (1). SimplifiedLayerNormalization has an optional second
// output, inv_std_var. Both become LayerNormalization (opset 17) with
// _vkserve_rms (runtime/ops/nn/layer_normalization.h): the same kernel,
// specialized, with inv_std_var as its InvStdDev output.
#include "absl/strings/str_cat.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"
#include "runtime/ops/nn/layer_normalization.h"

namespace vkserve {
namespace {

class RmsNormRewriteBase : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (stored.inputs.size() != 2 || ctx.input(0).empty() || ctx.input(1).empty()) {
      return absl::InvalidArgumentError("takes exactly inputs X and scale");
    }
    if (stored.outputs.empty() || stored.outputs.size() > max_outputs() || ctx.output(0).empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("has output Y and at most ", max_outputs() - 1, " optional outputs"));
    }
    for (const auto& [name, attribute] : stored.attributes) {
      if (name != "axis" && name != "epsilon" && name != "stash_type") {
        return absl::InvalidArgumentError(absl::StrCat("unknown attribute '", name, "'"));
      }
    }
    // The attributes mean what LayerNormalization's do (which checks them).
    Node& ln = ctx.AddNode("LayerNormalization", stored.inputs, {ctx.output(0)}, /*opset=*/17);
    ln.attributes = stored.attributes;
    ln.attributes[kLayerNormRmsAttr] = IntAttribute(1);
    if (!ctx.output(1).empty()) ln.outputs = {ctx.output(0), "", ctx.output(1)};
    return absl::OkStatus();
  }

 protected:
  virtual size_t max_outputs() const = 0;
};

class SimplifiedLayerNormRewrite : public RmsNormRewriteBase {
 protected:
  size_t max_outputs() const override { return 2; }
};

class RmsNormalizationRewrite : public RmsNormRewriteBase {
 protected:
  size_t max_outputs() const override { return 1; }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "SimplifiedLayerNormalization", 1, 25, SimplifiedLayerNormRewrite);
VKSERVE_REGISTER_REWRITE("", "RMSNormalization", 23, 25, RmsNormalizationRewrite);

}  // namespace vkserve
