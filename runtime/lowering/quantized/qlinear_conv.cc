// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// QLinearConv (opset 10+): y = quantize(Conv(dequantize(x), dequantize(w)) +
// B * x_scale * w_scale) with Conv's attributes, lowered to a float Conv
// between the conversions of quantized_lowering.h. w's scale and zero point
// are per tensor or per output channel; y takes y_zero_point's type.
#include "absl/strings/str_cat.h"
#include "runtime/lowering/quantized/quantized_lowering.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

class QLinearConvRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    for (size_t i = 0; i < 8; ++i) {
      if (ctx.input(i).empty() && i != 2 && i != 5) {
        return absl::InvalidArgumentError(absl::StrCat("QLinearConv needs input ", i));
      }
    }
    if (stored.outputs.size() != 1) return absl::InvalidArgumentError("QLinearConv has one output");
    DataType out_type = DataType::kUint8;
    if (!ctx.input(7).empty()) {
      ASSIGN_OR_RETURN(out_type, KnownDataType(ctx, ctx.input(7), "y_zero_point"));
    }
    const auto w_shape = ctx.known_shape(ctx.input(3));
    if (!w_shape) return absl::UnimplementedError("QLinearConv needs w's rank (a declared shape)");
    const std::string w_scale = AlongAxis0(ctx, ctx.input(4), w_shape->size());
    const std::string w_zero =
        ctx.input(5).empty() ? "" : AlongAxis0(ctx, ctx.input(5), w_shape->size());
    const std::string x = AddDequantize(ctx, ctx.input(0), ctx.input(1), ctx.input(2));
    const std::string w = AddDequantize(ctx, ctx.input(3), w_scale, w_zero);
    std::vector<std::string> conv_inputs = {x, w};
    if (!ctx.input(8).empty()) {
      // The int32 bias is in units of x_scale * w_scale (per channel).
      const std::string bias_scale = ctx.NewValueName(stored.outputs[0] + "_bias_scale");
      ctx.AddNode("Mul",
                  {AddCast(ctx, ctx.input(1), DataType::kFloat),
                   AddCast(ctx, ctx.input(4), DataType::kFloat)},
                  {bias_scale}, 14);
      const std::string bias = ctx.NewValueName(stored.outputs[0] + "_bias");
      ctx.AddNode("Mul", {AddCast(ctx, ctx.input(8), DataType::kFloat), bias_scale}, {bias}, 14);
      conv_inputs.push_back(bias);
    }
    const std::string y = ctx.NewValueName(stored.outputs[0] + "_float");
    ctx.AddNode("Conv", conv_inputs, {y}, 11).attributes = stored.attributes;
    return AddRequantize(ctx, y, ctx.input(6), ctx.input(7), stored.outputs[0], out_type);
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "QLinearConv", 10, 27, QLinearConvRewrite);

}  // namespace vkserve
