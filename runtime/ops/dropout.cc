// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Dropout (opsets 1-21) at inference: the identity, as an alias. The optional
// mask output and training mode (opset 12+ input 2) are not supported.
#include "runtime/op_registry.h"
#include "runtime/op_util.h"

namespace vkserve {
namespace {

class DropoutOp : public Op {
 public:
  Execution execution() const override { return Execution::kAlias; }
  bool IsHostInput(const Node&, size_t input_index) const override { return input_index > 0; }
  absl::Status Validate(const Node& node) const override {
    if (node.GetInt("is_test", 1) == 0 && node.opset < 7) {
      return absl::UnimplementedError("Dropout in training mode (is_test=0)");
    }
    return absl::OkStatus();
  }
  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    if (const TensorDesc* training = ctx.input(2); training != nullptr) {
      if (training->value == nullptr || training->value->num_elements() != 1 ||
          training->value->GetInt(0) != 0) {
        return absl::UnimplementedError("Dropout in training mode");
      }
    }
    if (ctx.outputs.size() > 1 && !ctx.node.outputs[1].empty()) {
      return absl::UnimplementedError("Dropout's mask output");
    }
    ctx.outputs[0] = *x;
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Dropout", 1, 21, DropoutOp);

}  // namespace vkserve
