// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GRU (opsets 7-22), gates z, r, h in W's order, lowered into a Scan
// (recurrent.h):
//   z = sigmoid(X Wz + H Rz + Wbz + Rbz),  r = sigmoid(X Wr + H Rr + Wbr + Rbr)
//   h~ = tanh(X Wh + (r * H) Rh + Rbh + Wbh)        (linear_before_reset = 0)
//   h~ = tanh(X Wh + r * (H Rh + Rbh) + Wbh)        (linear_before_reset = 1)
//   H' = (1 - z) * h~ + z * H
#include "absl/strings/ascii.h"
#include "runtime/lowering/rnn/recurrent.h"

namespace vkserve {
namespace {

class GruRewrite : public RecurrentRewrite {
 protected:
  int gates() const override { return 3; }
  const char* op_name() const override { return "GRU"; }
  absl::Status CheckAttributes(const Node& node) const override {
    const auto acts = node.FindAttribute("activations");
    if (acts != nullptr) {
      if (acts->strings.size() != 2 || absl::AsciiStrToLower(acts->strings[0]) != "sigmoid" ||
          absl::AsciiStrToLower(acts->strings[1]) != "tanh") {
        return absl::UnimplementedError(
            "only the default activations (Sigmoid, Tanh) are supported");
      }
    }
    return absl::OkStatus();
  }
  CellOutputs BuildCell(CellBuilder& b, const CellInputs& in, const Node& node) const override {
    std::string gx = b.Add("MatMul", {in.x, in.w_t}, "xw", 13);
    std::string gh = b.Add("MatMul", {in.h, in.r_t}, "hr", 13);
    if (!in.w_bias.empty()) {
      gx = b.Add("Add", {gx, in.w_bias}, "xw_b");
      gh = b.Add("Add", {gh, in.r_bias}, "hr_b");
    }
    const auto x3 = b.Split(gx, 3, 1, "x_gate");
    const auto h3 = b.Split(gh, 3, 1, "h_gate");
    const std::string z = b.Add("Sigmoid", {b.Add("Add", {x3[0], h3[0]}, "z_in")}, "z", 13);
    const std::string r = b.Add("Sigmoid", {b.Add("Add", {x3[1], h3[1]}, "r_in")}, "r", 13);
    std::string recurrent;
    if (node.GetInt("linear_before_reset", 0) != 0) {
      recurrent = b.Add("Mul", {r, h3[2]}, "r_hh");
    } else {
      const auto r_t3 = b.Split(in.r_t, 3, 1, "r_t");
      recurrent = b.Add("MatMul", {b.Add("Mul", {r, in.h}, "r_h"), r_t3[2]}, "rh_rh", 13);
      if (!in.r_bias.empty()) {
        recurrent = b.Add("Add", {recurrent, b.Split(in.r_bias, 3, 1, "r_b")[2]}, "rh_rh_b");
      }
    }
    const std::string cand =
        b.Add("Tanh", {b.Add("Add", {x3[2], recurrent}, "cand_in")}, "cand", 13);
    const std::string delta = b.Add("Sub", {in.h, cand}, "h_minus_cand");
    return {b.Add("Add", {cand, b.Add("Mul", {z, delta}, "z_delta")}, "h"), ""};
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "GRU", 7, 22, GruRewrite);

}  // namespace vkserve
