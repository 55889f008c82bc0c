// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// CausalConvWithState (opset 27): a depthwise causal 1-D convolution that
// carries its last kernel_size - 1 input steps between calls (Mamba-style
// decoding):
//
//   padded  = Concat(past_state or zeros [B, C, K-1], input, axis 2)
//   output  = activation(Conv(padded, weight, bias, group = C))
//   present = the last K-1 steps of padded
//
// with activation "none", "silu" or its alias "swish". Lowered to Concat (or
// Pad), a grouped Conv, Sigmoid * x and Slice — the ONNX function body.
// float16 tensors run the Conv in float between Casts.
#include <limits>

#include "absl/strings/str_cat.h"
#include "runtime/lowering/quantized/quantized_lowering.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

class CausalConvWithStateRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (ctx.input(0).empty() || ctx.input(1).empty() || stored.outputs.empty()) {
      return absl::InvalidArgumentError("CausalConvWithState needs input and weight");
    }
    const std::string activation = stored.GetString("activation", "none");
    if (activation != "none" && activation != "silu" && activation != "swish") {
      return absl::UnimplementedError(
          absl::StrCat("activation '", activation.substr(0, 32), "' is not supported"));
    }
    const auto w_shape = ctx.known_shape(ctx.input(1));
    if (!w_shape || w_shape->size() != 3 || !(*w_shape)[0].is_fixed() ||
        !(*w_shape)[2].is_fixed()) {
      return absl::UnimplementedError(
          "CausalConvWithState needs weight's shape [C, 1, K] declared");
    }
    const int64_t channels = (*w_shape)[0].value;
    const int64_t k = (*w_shape)[2].value;
    if (k < 1) return absl::InvalidArgumentError("kernel size must be at least 1");
    ASSIGN_OR_RETURN(const DataType dtype, KnownDataType(ctx, ctx.input(0), "input"));
    const bool widen = dtype == DataType::kFloat16 || dtype == DataType::kBFloat16;
    auto as_float = [&](const std::string& name) {
      return name.empty() || !widen ? name : AddCast(ctx, name, DataType::kFloat);
    };
    const std::string input = as_float(ctx.input(0));
    const std::string padded = ctx.NewValueName("padded");
    if (!ctx.input(3).empty()) {
      ctx.AddNode("Concat", {as_float(ctx.input(3)), input}, {padded}, 13).attributes["axis"] =
          IntAttribute(2);
    } else {
      const std::string pads =
          ctx.AddInitializer("pads", HostTensor::FromInts({0, 0, k - 1, 0, 0, 0}, {6}));
      ctx.AddNode("Pad", {input, pads}, {padded}, 18);
    }
    std::vector<std::string> conv_inputs = {padded, as_float(ctx.input(1))};
    if (!ctx.input(2).empty()) conv_inputs.push_back(as_float(ctx.input(2)));
    std::string y = ctx.NewValueName("conv");
    ctx.AddNode("Conv", conv_inputs, {y}, 11).attributes["group"] = IntAttribute(channels);
    if (activation != "none") {
      const std::string gate = ctx.NewValueName("gate");
      ctx.AddNode("Sigmoid", {y}, {gate}, 13);
      const std::string gated = ctx.NewValueName("silu");
      ctx.AddNode("Mul", {y, gate}, {gated}, 14);
      y = gated;
    }
    Finish(ctx, y, stored.outputs[0], dtype, widen);
    if (stored.outputs.size() > 1 && !stored.outputs[1].empty()) {
      // The last K-1 steps; none when K is 1 (a start past the end).
      const int64_t start = k == 1 ? std::numeric_limits<int64_t>::max() : -(k - 1);
      const std::string starts =
          ctx.AddInitializer("state_start", HostTensor::FromInts({start}, {1}));
      const std::string ends = ctx.AddInitializer(
          "state_end", HostTensor::FromInts({std::numeric_limits<int64_t>::max()}, {1}));
      const std::string axes = ctx.AddInitializer("state_axis", HostTensor::FromInts({2}, {1}));
      const std::string state = ctx.NewValueName("state");
      ctx.AddNode("Slice", {padded, starts, ends, axes}, {state}, 13);
      Finish(ctx, state, stored.outputs[1], dtype, widen);
    }
    return absl::OkStatus();
  }

 private:
  // `out` = `value`, cast back to `dtype` when the work ran widened.
  static void Finish(RewriteContext& ctx, const std::string& value, const std::string& out,
                     DataType dtype, bool widen) {
    if (out.empty()) return;
    if (widen) {
      ctx.AddNode("Cast", {value}, {out}, 19).attributes["to"] =
          IntAttribute(static_cast<int64_t>(dtype));
    } else {
      ctx.AddNode("Identity", {value}, {out}, 16);
    }
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "CausalConvWithState", 27, 27, CausalConvWithStateRewrite);

}  // namespace vkserve
