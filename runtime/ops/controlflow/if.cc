// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// If (opsets 1-27): runs then_branch or else_branch by a boolean condition.
// vkserve inlines the branch the condition picks when the plan is built: the
// condition must be known then — a constant, a model input (read from the
// request's host memory, as for every input that steers planning), or
// computable from shapes. A condition computed from tensor data on the GPU
// is refused at planning, naming the node; vkserve never reads data back
// mid-run. Both branches' nodes are checked at load.
#include "absl/strings/str_cat.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/controlflow/subgraph_inline.h"

namespace vkserve {
namespace {

class IfOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    for (const char* branch : {"then_branch", "else_branch"}) {
      ASSIGN_OR_RETURN(const Graph* g, GraphAttribute(node, branch));
      RETURN_IF_ERROR(ValidateSubgraph(*g));
      if (g->outputs.size() != node.outputs.size()) {
        return absl::InvalidArgumentError(absl::StrCat(branch, " has ", g->outputs.size(),
                                                       " outputs, the node ", node.outputs.size()));
      }
    }
    return absl::OkStatus();
  }
  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index == 0;
  }
  bool expands() const override { return true; }
  absl::Status Infer(InferContext& /*ctx*/) const override {
    return absl::InternalError("If is expanded, never inferred");
  }

  absl::Status Expand(ExpandContext& ctx) const override {
    const Node& node = ctx.node();
    const TensorDesc* cond = node.inputs.empty() ? nullptr : ctx.Find(node.inputs[0]);
    if (cond == nullptr || cond->value == nullptr) {
      return absl::UnimplementedError(
          "the condition must be known when the plan is built (a constant, a model input, or "
          "computable from shapes); vkserve does not branch on data computed on the GPU");
    }
    if (cond->value->num_elements() != 1) {
      return absl::InvalidArgumentError("the condition must hold one element");
    }
    const bool taken = cond->value->GetInt(0) != 0;
    const char* branch = taken ? "then_branch" : "else_branch";
    ASSIGN_OR_RETURN(const Graph* g, GraphAttribute(node, branch));
    ASSIGN_OR_RETURN(std::vector<std::string> outs,
                     InlineSubgraph(ctx, *g, {}, absl::StrCat(node.name, "/", branch, "/")));
    for (size_t k = 0; k < outs.size() && k < node.outputs.size(); ++k) {
      if (!node.outputs[k].empty())
        RETURN_IF_ERROR(EmitIdentity(ctx, outs[k], node.outputs[k]).status());
    }
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "If", 1, 27, IfOp);

}  // namespace vkserve
