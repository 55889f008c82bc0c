// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// RNN (opsets 7-22): H = tanh(X Wt + H Rt + Wb + Rb), lowered into a Scan
// (recurrent.h).
#include "absl/strings/ascii.h"
#include "runtime/lowering/rnn/recurrent.h"

namespace vkserve {
namespace {

class RnnRewrite : public RecurrentRewrite {
 protected:
  int gates() const override { return 1; }
  const char* op_name() const override { return "RNN"; }
  absl::Status CheckAttributes(const Node& node) const override {
    const auto acts = node.FindAttribute("activations");
    if (acts != nullptr &&
        (acts->strings.size() != 1 || absl::AsciiStrToLower(acts->strings[0]) != "tanh")) {
      return absl::UnimplementedError("only the default activation (Tanh) is supported");
    }
    return absl::OkStatus();
  }
  CellOutputs BuildCell(CellBuilder& b, const CellInputs& in, const Node& /*node*/) const override {
    std::string g = b.Add(
        "Add",
        {b.Add("MatMul", {in.x, in.w_t}, "xw", 13), b.Add("MatMul", {in.h, in.r_t}, "hr", 13)},
        "gates");
    if (!in.w_bias.empty())
      g = b.Add("Add", {b.Add("Add", {g, in.w_bias}, "gates_wb"), in.r_bias}, "gates_b");
    return {b.Add("Tanh", {g}, "h", 13), ""};
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "RNN", 7, 22, RnnRewrite);

}  // namespace vkserve
