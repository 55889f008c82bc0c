// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// QLinearMatMul (opset 10+): Y = quantize(dequantize(A) x dequantize(B)) with
// per-tensor (or per-row of a 2-D A, per-column of B) scales and zero points
// of any float type, lowered to a float MatMul between the conversions of
// quantized_lowering.h. Y takes y_zero_point's type.
#include "absl/strings/str_cat.h"
#include "runtime/lowering/quantized/quantized_lowering.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

class QLinearMatMulRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    for (size_t i = 0; i < 8; ++i) {
      if (ctx.input(i).empty()) {
        return absl::InvalidArgumentError(absl::StrCat("QLinearMatMul needs input ", i));
      }
    }
    if (stored.outputs.size() != 1)
      return absl::InvalidArgumentError("QLinearMatMul has one output");
    ASSIGN_OR_RETURN(DataType out_type, KnownDataType(ctx, ctx.input(7), "y_zero_point"));
    const auto a_shape = ctx.known_shape(ctx.input(0));
    const size_t row_rank = a_shape && a_shape->size() == 2 ? 2 : 0;
    const std::string a = AddDequantize(ctx, ctx.input(0), AlongAxis0(ctx, ctx.input(1), row_rank),
                                        AlongAxis0(ctx, ctx.input(2), row_rank));
    const std::string b = AddDequantize(ctx, ctx.input(3), ctx.input(4), ctx.input(5));
    const std::string product = ctx.NewValueName(stored.outputs[0] + "_float");
    ctx.AddNode("MatMul", {a, b}, {product}, 13);
    return AddRequantize(ctx, product, ctx.input(6), ctx.input(7), stored.outputs[0], out_type);
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "QLinearMatMul", 10, 27, QLinearMatMulRewrite);

}  // namespace vkserve
