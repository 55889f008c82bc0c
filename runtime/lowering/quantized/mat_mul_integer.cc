// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// MatMulInteger (opset 10+): int32 Y = (A - a_zero_point) x (B - b_zero_point)
// over 8-bit operands, lowered to a float MatMul (quantized_lowering.h: exact
// while the sums stay under 2^24) and a Cast to int32. a_zero_point is per
// tensor or per row of a 2-D A; b_zero_point per tensor or per column.
#include "absl/strings/str_cat.h"
#include "runtime/lowering/quantized/quantized_lowering.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

class MatMulIntegerRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (ctx.input(0).empty() || ctx.input(1).empty() || stored.outputs.size() != 1) {
      return absl::InvalidArgumentError("MatMulInteger takes A, B and optional zero points");
    }
    std::string a_zero = ctx.input(2);
    if (!a_zero.empty()) {
      const auto a_shape = ctx.known_shape(ctx.input(0));
      const size_t rank = a_shape ? a_shape->size() : 0;
      a_zero = AlongAxis0(ctx, a_zero, rank == 2 ? 2 : 0);
    }
    const std::string a = AddDequantize(ctx, ctx.input(0), "", a_zero);
    const std::string b = AddDequantize(ctx, ctx.input(1), "", ctx.input(3));
    const std::string product = ctx.NewValueName(stored.outputs[0] + "_float");
    ctx.AddNode("MatMul", {a, b}, {product}, 13);
    ctx.AddNode("Cast", {product}, {stored.outputs[0]}, 19).attributes["to"] =
        IntAttribute(static_cast<int64_t>(DataType::kInt32));
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "MatMulInteger", 10, 27, MatMulIntegerRewrite);

}  // namespace vkserve
