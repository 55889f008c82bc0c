// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Loop (opsets 11-27): runs `body` while the iteration count is below M and
// the condition holds, carrying values between iterations and stacking the
// per-iteration scan outputs. vkserve unrolls the loop when the plan is
// built: M and the initial condition must be known then (constants, model
// inputs read from the request's host memory, or computable from shapes),
// and so must every iteration's condition unless the node has no condition
// input. Each iteration's nodes then run on the GPU like any other; a
// condition computed from GPU data is refused at planning, naming the node —
// vkserve never reads data back mid-run. At most kLoopMaxIterations are unrolled.
#include "absl/strings/str_cat.h"
#include "runtime/op/op_registry.h"
#include "runtime/ops/controlflow/subgraph_inline.h"

namespace vkserve {
namespace {

constexpr int64_t kLoopMaxIterations = 4096;

// Emits a Constant holding `t`; returns its value's name.
absl::StatusOr<std::string> EmitConstant(ExpandContext& ctx, const std::string& hint,
                                         HostTensor t) {
  Node n;
  n.op_type = "Constant";
  n.opset = 13;
  n.outputs = {ctx.NewName(hint)};
  n.name = n.outputs[0];
  Attribute value;
  value.type = Attribute::Type::kTensor;
  value.t = std::move(t);
  n.attributes["value"] = std::move(value);
  const std::string out = n.outputs[0];
  RETURN_IF_ERROR(ctx.Emit(std::move(n)));
  return out;
}

HostTensor BoolScalar(bool v) {
  HostTensor t;
  t.dtype = DataType::kBool;
  t.data = TensorBytes(std::vector<uint8_t>{static_cast<uint8_t>(v ? 1 : 0)});
  return t;
}

class LoopOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    ASSIGN_OR_RETURN(const Graph* body, GraphAttribute(node, "body"));
    return ValidateSubgraph(*body);
  }
  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index < 2;
  }
  bool expands() const override { return true; }
  absl::Status Infer(InferContext& /*ctx*/) const override {
    return absl::InternalError("Loop is expanded, never inferred");
  }

  absl::Status Expand(ExpandContext& ctx) const override {
    const Node& node = ctx.node();
    ASSIGN_OR_RETURN(const Graph* body, GraphAttribute(node, "body"));
    auto host_input = [&](size_t i) -> absl::StatusOr<const HostTensor*> {
      if (i >= node.inputs.size() || node.inputs[i].empty()) return nullptr;
      const TensorDesc* d = ctx.Find(node.inputs[i]);
      if (d == nullptr || d->value == nullptr || d->value->num_elements() != 1) {
        return absl::UnimplementedError(
            absl::StrCat(i == 0 ? "the trip count M" : "the condition",
                         " must be a scalar known when the "
                         "plan is built (a constant, a model input, or computable from shapes)"));
      }
      return d->value.get();
    };
    ASSIGN_OR_RETURN(const HostTensor* trip, host_input(0));
    ASSIGN_OR_RETURN(const HostTensor* cond0, host_input(1));
    const int64_t max_trip = trip == nullptr ? kLoopMaxIterations + 1 : trip->GetInt(0);
    bool cond = cond0 == nullptr || cond0->GetInt(0) != 0;
    const size_t carried_count = node.inputs.size() > 2 ? node.inputs.size() - 2 : 0;
    if (body->outputs.size() < 1 + carried_count ||
        node.outputs.size() > body->outputs.size() - 1) {
      return absl::InvalidArgumentError("body outputs do not match the node's");
    }
    const size_t scan_count = body->outputs.size() - 1 - carried_count;
    std::vector<std::string> carried(node.inputs.begin() + 2, node.inputs.end());
    std::vector<std::vector<std::string>> scans(scan_count);
    int64_t i = 0;
    for (; i < max_trip && cond; ++i) {
      if (i >= kLoopMaxIterations) {
        return absl::UnimplementedError(
            absl::StrCat("vkserve unrolls at most ", kLoopMaxIterations, " iterations"));
      }
      const std::string prefix = absl::StrCat(node.name, "/", i, "/");
      ASSIGN_OR_RETURN(std::string iter,
                       EmitConstant(ctx, prefix + "iteration", HostTensor::FromInts({i}, {})));
      ASSIGN_OR_RETURN(std::string cond_in, EmitConstant(ctx, prefix + "cond", BoolScalar(cond)));
      std::vector<std::string> inputs = {iter, cond_in};
      inputs.insert(inputs.end(), carried.begin(), carried.end());
      ASSIGN_OR_RETURN(std::vector<std::string> outs, InlineSubgraph(ctx, *body, inputs, prefix));
      if (cond0 != nullptr) {
        const TensorDesc* c = ctx.Find(outs[0]);
        if (c == nullptr || c->value == nullptr || c->value->num_elements() != 1) {
          return absl::UnimplementedError(
              "the body's condition output is computed from tensor data on the GPU; vkserve "
              "unrolls loops when the plan is built and never reads data back mid-run");
        }
        cond = c->value->GetInt(0) != 0;
      }
      for (size_t j = 0; j < carried_count; ++j) carried[j] = outs[1 + j];
      for (size_t k = 0; k < scan_count; ++k) scans[k].push_back(outs[1 + carried_count + k]);
    }
    for (size_t j = 0; j < carried_count && j < node.outputs.size(); ++j) {
      if (!node.outputs[j].empty())
        RETURN_IF_ERROR(EmitIdentity(ctx, carried[j], node.outputs[j]).status());
    }
    for (size_t k = 0; k < scan_count && carried_count + k < node.outputs.size(); ++k) {
      const std::string& out = node.outputs[carried_count + k];
      if (out.empty()) continue;
      if (scans[k].empty()) {
        return absl::UnimplementedError(
            "the loop runs no iteration: its scan outputs have no shape");
      }
      RETURN_IF_ERROR(EmitStack(ctx, scans[k], 0, out));
    }
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Loop", 11, 27, LoopOp);

}  // namespace vkserve
