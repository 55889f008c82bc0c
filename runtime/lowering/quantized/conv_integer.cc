// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ConvInteger (opset 10+): int32 Y = Conv(x - x_zero_point, w - w_zero_point)
// with Conv's attributes, lowered to a float Conv (quantized_lowering.h:
// exact while the sums stay under 2^24) and a Cast to int32. Padding reads
// as x_zero_point, as the definition subtracts it first. w_zero_point is per
// tensor or per output channel.
#include "absl/strings/str_cat.h"
#include "runtime/lowering/quantized/quantized_lowering.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

class ConvIntegerRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (ctx.input(0).empty() || ctx.input(1).empty() || stored.outputs.size() != 1) {
      return absl::InvalidArgumentError("ConvInteger takes x, w and optional zero points");
    }
    std::string w_zero = ctx.input(3);
    if (!w_zero.empty()) {
      const auto w_shape = ctx.known_shape(ctx.input(1));
      if (!w_shape) {
        return absl::UnimplementedError("ConvInteger needs w's rank (a declared shape)");
      }
      w_zero = AlongAxis0(ctx, w_zero, w_shape->size());
    }
    const std::string x = AddDequantize(ctx, ctx.input(0), "", ctx.input(2));
    const std::string w = AddDequantize(ctx, ctx.input(1), "", w_zero);
    const std::string y = ctx.NewValueName(stored.outputs[0] + "_float");
    ctx.AddNode("Conv", {x, w}, {y}, 11).attributes = stored.attributes;
    ctx.AddNode("Cast", {y}, {stored.outputs[0]}, 19).attributes["to"] =
        IntAttribute(static_cast<int64_t>(DataType::kInt32));
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "ConvInteger", 10, 27, ConvIntegerRewrite);

}  // namespace vkserve
