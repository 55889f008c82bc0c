// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// DynamicQuantizeLinear (opset 11+): uint8 quantization of x with a scale and
// zero point computed from x's range (which always includes 0):
//
//   y_scale = (max(0, max x) - min(0, min x)) / 255
//   y_zero_point = saturate(round(0 - min(0, min x) / y_scale))
//   y = saturate(round(x / y_scale) + y_zero_point)
//
// lowered to ReduceMin/ReduceMax and elementwise ops, all on the GPU.
#include "absl/strings/str_cat.h"
#include "runtime/lowering/quantized/quantized_lowering.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

class DynamicQuantizeLinearRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    const std::string& x = ctx.input(0);
    if (x.empty() || stored.outputs.size() != 3) {
      return absl::InvalidArgumentError("DynamicQuantizeLinear takes x and has 3 outputs");
    }
    const std::string zero = AddFloatScalar(ctx, x + "_zero", 0.0f);
    auto range_end = [&](const char* reduce, const char* clamp, const char* hint) {
      const std::string reduced = ctx.NewValueName(absl::StrCat(x, "_", hint));
      ctx.AddNode(reduce, {x}, {reduced}, 13).attributes["keepdims"] = IntAttribute(0);
      const std::string with_zero = ctx.NewValueName(absl::StrCat(x, "_", hint, "_with_zero"));
      ctx.AddNode(clamp, {reduced, zero}, {with_zero}, 13);
      return with_zero;
    };
    const std::string lo = range_end("ReduceMin", "Min", "min");
    const std::string hi = range_end("ReduceMax", "Max", "max");
    const std::string range = ctx.NewValueName(x + "_range");
    ctx.AddNode("Sub", {hi, lo}, {range}, 14);
    const std::string& scale =
        stored.outputs[1].empty() ? ctx.NewValueName(x + "_scale") : stored.outputs[1];
    ctx.AddNode("Div", {range, AddFloatScalar(ctx, x + "_levels", 255.0f)}, {scale}, 14);
    const std::string neg_lo = ctx.NewValueName(x + "_neg_min");
    ctx.AddNode("Sub", {zero, lo}, {neg_lo}, 14);
    const std::string zero_point =
        stored.outputs[2].empty() ? ctx.NewValueName(x + "_zero_point") : stored.outputs[2];
    RETURN_IF_ERROR(AddRequantize(ctx, neg_lo, scale, "", zero_point, DataType::kUint8));
    if (stored.outputs[0].empty()) return absl::OkStatus();
    return AddRequantize(ctx, AddCast(ctx, x, DataType::kFloat), scale, zero_point,
                         stored.outputs[0], DataType::kUint8);
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "DynamicQuantizeLinear", 11, 27, DynamicQuantizeLinearRewrite);

}  // namespace vkserve
