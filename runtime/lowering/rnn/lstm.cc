// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LSTM (opsets 7-22), gates i, o, f, c in W's order, optional peepholes P
// (Pi, Po, Pf), lowered into a Scan (recurrent.h):
//   i = sigmoid(X Wi + H Ri + Pi * C + bi),  f = sigmoid(X Wf + H Rf + Pf * C + bf)
//   C' = f * C + i * tanh(X Wc + H Rc + bc)
//   o = sigmoid(X Wo + H Ro + Po * C' + bo),  H' = o * tanh(C')
#include "absl/strings/ascii.h"
#include "runtime/lowering/rnn/recurrent.h"

namespace vkserve {
namespace {

class LstmRewrite : public RecurrentRewrite {
 protected:
  int gates() const override { return 4; }
  bool has_cell_state() const override { return true; }
  const char* op_name() const override { return "LSTM"; }
  absl::Status CheckAttributes(const Node& node) const override {
    if (node.GetInt("input_forget", 0) != 0)
      return absl::UnimplementedError("input_forget is not supported");
    const auto acts = node.FindAttribute("activations");
    if (acts != nullptr) {
      const std::vector<std::string> want = {"sigmoid", "tanh", "tanh"};
      bool ok = acts->strings.size() == want.size();
      for (size_t i = 0; ok && i < want.size(); ++i)
        ok = absl::AsciiStrToLower(acts->strings[i]) == want[i];
      if (!ok)
        return absl::UnimplementedError(
            "only the default activations (Sigmoid, Tanh, Tanh) are supported");
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
    const auto gate = b.Split(g, 4, 1, "gate");  // i, o, f, c
    std::vector<std::string> p;
    if (!in.peepholes.empty()) p = b.Split(in.peepholes, 3, 0, "peephole");  // i, o, f
    auto peep = [&](const std::string& pre, int which, const std::string& c, const char* hint) {
      if (p.empty()) return pre;
      return b.Add("Add", {pre, b.Add("Mul", {p[which], c}, std::string(hint) + "_peep")}, hint);
    };
    const std::string i = b.Add("Sigmoid", {peep(gate[0], 0, in.c, "i_in")}, "i", 13);
    const std::string f = b.Add("Sigmoid", {peep(gate[2], 2, in.c, "f_in")}, "f", 13);
    const std::string cand = b.Add("Tanh", {gate[3]}, "cand", 13);
    const std::string c =
        b.Add("Add", {b.Add("Mul", {f, in.c}, "f_c"), b.Add("Mul", {i, cand}, "i_cand")}, "c");
    const std::string o = b.Add("Sigmoid", {peep(gate[1], 1, c, "o_in")}, "o", 13);
    return {b.Add("Mul", {o, b.Add("Tanh", {c}, "tanh_c", 13)}, "h"), c};
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "LSTM", 7, 22, LstmRewrite);

}  // namespace vkserve
