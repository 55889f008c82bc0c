// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LayerNormalization in the ONNX domain below opset 17: ONNX Runtime
// registers its own LayerNormalization there at since_version 1 and its
// optimizers write it into models of any opset (LayerNormFusion). Its inputs,
// outputs and attributes (axis, epsilon, stash_type) mean what opset 17's do,
// so the node becomes the opset-17 op unchanged.
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

class LayerNormalizationV1Rewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    Node& node = ctx.AddNode("LayerNormalization", stored.inputs, stored.outputs, /*opset=*/17);
    node.attributes = stored.attributes;
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "LayerNormalization", 1, 16, LayerNormalizationV1Rewrite);

}  // namespace vkserve
