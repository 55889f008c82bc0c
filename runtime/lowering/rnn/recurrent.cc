// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/lowering/rnn/recurrent.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "runtime/lowering/quantized/quantized_lowering.h"
#include "runtime/lowering/rewrite_attributes.h"

namespace vkserve {
namespace {

TensorType FloatType(std::vector<int64_t> dims) {
  TensorType t;
  t.dtype = DataType::kFloat;
  t.has_shape = true;
  for (int64_t d : dims) t.shape.push_back(Dim{d, "", ""});
  return t;
}

// `name` reshaped to `shape` (an added initializer holds the shape).
std::string Reshaped(RewriteContext& ctx, const std::string& name, std::vector<int64_t> shape) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  const std::string target =
      ctx.AddInitializer(name + "_shape", HostTensor::FromInts(shape, {rank}));
  const std::string out = ctx.NewValueName(name + "_reshaped");
  ctx.AddNode("Reshape", {name, target}, {out}, 14);
  return out;
}

std::string Transposed(RewriteContext& ctx, const std::string& name, int64_t rows, int64_t cols) {
  const std::string out = ctx.NewValueName(name + "_t");
  ctx.AddNode("Transpose", {Reshaped(ctx, name, {rows, cols})}, {out}, 13).attributes["perm"] =
      IntsAttribute({1, 0});
  return out;
}

std::string Unsqueezed(RewriteContext& ctx, const std::string& in, int64_t axis,
                       const std::string& out) {
  ctx.AddNode("Unsqueeze", {in}, {out}, 11).attributes["axes"] = IntsAttribute({axis});
  return out;
}

Attribute GraphAttribute(Graph g) {
  Attribute a;
  a.type = Attribute::Type::kGraph;
  a.graphs.push_back(std::make_shared<const Graph>(std::move(g)));
  return a;
}

}  // namespace

std::string CellBuilder::Add(const std::string& op, std::vector<std::string> inputs,
                             const std::string& out, int64_t opset) {
  Node n;
  n.op_type = op;
  n.opset = opset;
  n.inputs = std::move(inputs);
  n.outputs = {absl::StrCat("cell/", out, "_", count_++)};
  n.name = n.outputs[0];
  body_->nodes.push_back(std::move(n));
  return body_->nodes.back().outputs[0];
}

std::vector<std::string> CellBuilder::Split(const std::string& value, int parts, int64_t axis,
                                            const std::string& hint) {
  Node n;
  n.op_type = "Split";
  n.opset = 13;
  n.inputs = {value};
  for (int i = 0; i < parts; ++i) n.outputs.push_back(absl::StrCat("cell/", hint, i, "_", count_));
  ++count_;
  n.name = n.outputs[0] + "/split";
  n.attributes["axis"] = IntAttribute(axis);
  body_->nodes.push_back(n);
  return n.outputs;
}

absl::StatusOr<RecurrentRewrite::Dims> RecurrentRewrite::CheckNode(RewriteContext& ctx) const {
  const Node& node = ctx.node();
  if (ctx.input(0).empty() || ctx.input(1).empty() || ctx.input(2).empty()) {
    return absl::InvalidArgumentError(absl::StrCat(op_name(), " needs X, W and R"));
  }
  RETURN_IF_ERROR(CheckAttributes(node));
  const std::string direction = node.GetString("direction", "forward");
  if (direction != "forward" && direction != "reverse") {
    return absl::UnimplementedError(absl::StrCat("direction '", direction.substr(0, 32),
                                                 "' is not supported (forward or reverse)"));
  }
  if (node.FindAttribute("clip") != nullptr)
    return absl::UnimplementedError("'clip' is not supported");
  Dims d;
  d.reverse = direction == "reverse";
  d.hidden = node.GetInt("hidden_size", 0);
  if (d.hidden < 1) return absl::InvalidArgumentError("hidden_size must be positive");
  d.batch_major = node.GetInt("layout", 0) != 0;
  ASSIGN_OR_RETURN(const DataType dtype, KnownDataType(ctx, ctx.input(0), "X"));
  const auto xs = ctx.known_shape(ctx.input(0));
  if (dtype != DataType::kFloat || !xs || xs->size() != 3 || !(*xs)[0].is_fixed() ||
      !(*xs)[1].is_fixed() || !(*xs)[2].is_fixed()) {
    return absl::UnimplementedError(
        absl::StrCat(op_name(), " needs a float X of declared fixed shape [seq, batch, input]"));
  }
  d.seq = (*xs)[d.batch_major ? 1 : 0].value;
  d.batch = (*xs)[d.batch_major ? 0 : 1].value;
  d.input = (*xs)[2].value;
  return d;
}

CellInputs RecurrentRewrite::OuterInputs(RewriteContext& ctx, const Dims& d) const {
  const int64_t gh = gates() * d.hidden;
  CellInputs in;
  in.hidden = d.hidden;
  in.w_t = Transposed(ctx, ctx.input(1), gh, d.input);
  in.r_t = Transposed(ctx, ctx.input(2), gh, d.hidden);
  if (!ctx.input(3).empty()) {
    in.w_bias = ctx.NewValueName("w_bias");
    in.r_bias = ctx.NewValueName("r_bias");
    ctx.AddNode("Split", {Reshaped(ctx, ctx.input(3), {2, gh})}, {in.w_bias, in.r_bias}, 13)
        .attributes["axis"] = IntAttribute(0);
  }
  if (has_cell_state() && !ctx.input(7).empty())
    in.peepholes = Reshaped(ctx, ctx.input(7), {3, d.hidden});
  return in;
}

Graph RecurrentRewrite::Body(const Node& node, const Dims& d, CellInputs in,
                             const std::string& lens) const {
  Graph body;
  CellBuilder b(&body);
  in.h = "cell/h_in";
  in.x = "cell/x_in";
  body.inputs.push_back({in.h, FloatType({d.batch, d.hidden})});
  if (has_cell_state()) {
    in.c = "cell/c_in";
    body.inputs.push_back({in.c, FloatType({d.batch, d.hidden})});
  }
  body.inputs.push_back({in.x, FloatType({d.batch, d.input})});
  const bool masked = !lens.empty();
  if (masked) {
    TensorType t;
    t.dtype = DataType::kInt64;
    t.has_shape = true;
    body.inputs.push_back({"cell/t_in", t});
  }
  const CellOutputs cell = BuildCell(b, in, node);
  std::string h_out = cell.h, c_out = cell.c, y_out = cell.h;
  if (masked) {
    // Past a batch entry's length the state stays and Y is zero.
    const std::string t = b.Add("Cast", {"cell/t_in"}, "t");
    body.nodes.back().attributes["to"] = IntAttribute(static_cast<int64_t>(DataType::kFloat));
    const std::string live = b.Add("Less", {t, lens}, "live", 13);
    const std::string mask = b.Add("Cast", {live}, "mask");
    body.nodes.back().attributes["to"] = IntAttribute(static_cast<int64_t>(DataType::kFloat));
    auto keep = [&](const std::string& prev, const std::string& next, const char* hint) {
      const std::string delta = b.Add("Sub", {next, prev}, std::string(hint) + "_delta");
      return b.Add("Add", {prev, b.Add("Mul", {mask, delta}, std::string(hint) + "_masked")}, hint);
    };
    h_out = keep(in.h, cell.h, "h_kept");
    if (has_cell_state()) c_out = keep(in.c, cell.c, "c_kept");
    y_out = b.Add("Mul", {mask, cell.h}, "y_masked");
  } else {
    y_out = b.Add("Identity", {cell.h}, "y", 16);
  }
  body.outputs.push_back({h_out, FloatType({d.batch, d.hidden})});
  if (has_cell_state()) body.outputs.push_back({c_out, FloatType({d.batch, d.hidden})});
  body.outputs.push_back({y_out, FloatType({d.batch, d.hidden})});
  return body;
}

void RecurrentRewrite::EmitScan(RewriteContext& ctx, const Dims& d, Graph body,
                                const std::string& lens) const {
  const Node& node = ctx.node();
  auto initial_state = [&](size_t i, const char* hint) {
    if (!ctx.input(i).empty()) return Reshaped(ctx, ctx.input(i), {d.batch, d.hidden});
    return ctx.AddInitializer(
        hint,
        HostTensor::FromFloats(std::vector<float>(static_cast<size_t>(d.batch * d.hidden), 0.0f),
                               {d.batch, d.hidden}));
  };
  std::vector<std::string> scan_inputs = {initial_state(5, "initial_h")};
  if (has_cell_state()) scan_inputs.push_back(initial_state(6, "initial_c"));
  scan_inputs.push_back(ctx.input(0));
  std::vector<int64_t> axes = {d.batch_major ? 1 : 0};
  const bool masked = !lens.empty();
  if (masked) {
    std::vector<int64_t> steps(static_cast<size_t>(d.seq));
    for (int64_t t = 0; t < d.seq; ++t) steps[static_cast<size_t>(t)] = t;
    scan_inputs.push_back(ctx.AddInitializer("steps", HostTensor::FromInts(steps, {d.seq})));
    axes.push_back(0);
  }
  const std::string h_final = ctx.NewValueName("h_final");
  const std::string c_final = has_cell_state() ? ctx.NewValueName("c_final") : "";
  const std::string ys = ctx.NewValueName("y_steps");
  std::vector<std::string> scan_outputs = {h_final};
  if (has_cell_state()) scan_outputs.push_back(c_final);
  scan_outputs.push_back(ys);
  Node& scan = ctx.AddNode("Scan", scan_inputs, scan_outputs, 16);
  scan.attributes["body"] = GraphAttribute(std::move(body));
  scan.attributes["num_scan_inputs"] = IntAttribute(masked ? 2 : 1);
  scan.attributes["scan_input_axes"] = IntsAttribute(axes);
  scan.attributes["scan_input_directions"] =
      IntsAttribute(std::vector<int64_t>(axes.size(), d.reverse ? 1 : 0));
  scan.attributes["scan_output_axes"] = IntsAttribute({d.batch_major ? 1 : 0});
  scan.attributes["scan_output_directions"] = IntsAttribute({d.reverse ? 1 : 0});

  // Y [seq, 1, batch, hidden] (layout 1: [batch, seq, 1, hidden]); Y_h and
  // Y_c [1, batch, hidden] (layout 1: [batch, 1, hidden]).
  const std::string& y = node.outputs.size() > 0 ? node.outputs[0] : "";
  if (!y.empty()) Unsqueezed(ctx, ys, d.batch_major ? 2 : 1, y);
  if (node.outputs.size() > 1 && !node.outputs[1].empty()) {
    Unsqueezed(ctx, h_final, d.batch_major ? 1 : 0, node.outputs[1]);
  }
  if (has_cell_state() && node.outputs.size() > 2 && !node.outputs[2].empty()) {
    Unsqueezed(ctx, c_final, d.batch_major ? 1 : 0, node.outputs[2]);
  }
}

absl::Status RecurrentRewrite::Apply(RewriteContext& ctx) const {
  ASSIGN_OR_RETURN(const Dims d, CheckNode(ctx));
  CellInputs in = OuterInputs(ctx, d);
  // sequence_lens as float [batch, 1], compared with each step's number.
  const std::string lens =
      ctx.input(4).empty()
          ? ""
          : Reshaped(ctx, AddCast(ctx, ctx.input(4), DataType::kFloat), {d.batch, 1});
  EmitScan(ctx, d, Body(ctx.node(), d, std::move(in), lens), lens);
  return absl::OkStatus();
}

}  // namespace vkserve
