// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// CosineWindowRewrite: HannWindow, HammingWindow and BlackmanWindow (opset 17+): the generalized
// cosine window of `size` points,
//
//   w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N),  n = 0 .. size-1
//
// with N = size (periodic = 1, the default) or size - 1 (symmetric), cast to
// output_datatype. Lowered to the ONNX function body: Range over the size
// (a value read on the host at planning when it is a model input), then
// elementwise Cos/Mul/Sub/Add on the GPU. Each window op's file registers
// the rewrite with its coefficients. Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_LOWERING_ONNX_COSINE_WINDOW_H_
#define VKSERVE_RUNTIME_LOWERING_ONNX_COSINE_WINDOW_H_

#include <numbers>

#include "absl/strings/str_cat.h"
#include "runtime/lowering/quantized/quantized_lowering.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"

namespace vkserve {

struct Coefficients {
  float a0, a1, a2;
};

// `Window` provides `static constexpr Coefficients kCoefficients`.
template <typename Window>
class CosineWindowRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Coefficients& c = Window::kCoefficients;
    const Node& stored = ctx.node();
    if (ctx.input(0).empty() || stored.outputs.size() != 1) {
      return absl::InvalidArgumentError("a window op takes size and has one output");
    }
    ASSIGN_OR_RETURN(const bool periodic, GetFlagAttribute(stored, "periodic", true));
    const int64_t out_type =
        stored.GetInt("output_datatype", static_cast<int64_t>(DataType::kFloat));
    if (!IsKnownDataType(static_cast<int32_t>(out_type))) {
      return absl::UnimplementedError(
          absl::StrCat("output_datatype ", out_type, " is not supported"));
    }
    const std::string size = AddCast(ctx, ctx.input(0), DataType::kFloat);
    std::string period = size;
    if (!periodic) {
      period = ctx.NewValueName("period");
      ctx.AddNode("Sub", {size, AddFloatScalar(ctx, "one", 1.0f)}, {period}, 14);
    }
    const std::string step = ctx.NewValueName("angular_step");
    ctx.AddNode("Div", {AddFloatScalar(ctx, "tau", 2 * std::numbers::pi_v<float>), period}, {step},
                14);
    const std::string n = ctx.NewValueName("n");
    ctx.AddNode("Range",
                {AddFloatScalar(ctx, "zero", 0.0f), size, AddFloatScalar(ctx, "one", 1.0f)}, {n},
                11);
    const std::string angle = ctx.NewValueName("angle");
    ctx.AddNode("Mul", {n, step}, {angle}, 14);
    auto term = [&](float a, float multiple, const char* hint) {
      std::string x = angle;
      if (multiple != 1.0f) {
        x = ctx.NewValueName(absl::StrCat(hint, "_angle"));
        ctx.AddNode("Mul", {angle, AddFloatScalar(ctx, "multiple", multiple)}, {x}, 14);
      }
      const std::string cos = ctx.NewValueName(absl::StrCat(hint, "_cos"));
      ctx.AddNode("Cos", {x}, {cos}, 7);
      const std::string scaled = ctx.NewValueName(hint);
      ctx.AddNode("Mul", {cos, AddFloatScalar(ctx, hint, a)}, {scaled}, 14);
      return scaled;
    };
    std::string w = ctx.NewValueName("window");
    ctx.AddNode("Sub", {AddFloatScalar(ctx, "a0", c.a0), term(c.a1, 1.0f, "a1")}, {w}, 14);
    if (c.a2 != 0.0f) {
      const std::string sum = ctx.NewValueName("window_a2");
      ctx.AddNode("Add", {w, term(c.a2, 2.0f, "a2")}, {sum}, 14);
      w = sum;
    }
    ctx.AddNode("Cast", {w}, {stored.outputs[0]}, 19).attributes["to"] = IntAttribute(out_type);
    return absl::OkStatus();
  }
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_LOWERING_ONNX_COSINE_WINDOW_H_
