// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Gelu (opsets 20-27), fp32: an activation (runtime/ops/unary/unary_op.h), so it
// also fuses into a preceding Conv/Gemm/MatMul epilogue. approximate "none"
// (the default) is the exact x * (1 + erf(x / sqrt(2))) / 2; "tanh" is
// x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2. ONNX Runtime's
// com.microsoft Gelu, BiasGelu and FastGelu are rewritten into this op
// (runtime/lowering/).
#include "absl/strings/str_cat.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"
#include "runtime/ops/unary/unary_op.h"

namespace vkserve {
namespace {

class GeluOp : public ActivationOp {
 public:
  GeluOp() : ActivationOp(Activation::kGelu) {}

  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(ActivationOp::Validate(node));
    RETURN_IF_ERROR(CheckAttributeType(node, "approximate", Attribute::Type::kString));
    return KindOf(node).status();
  }

 protected:
  absl::StatusOr<ActivationParams> ParamsOf(const Node& node,
                                            const ConstantInput& /*constant*/) const override {
    ActivationParams p;
    ASSIGN_OR_RETURN(p.kind, KindOf(node));
    return p;
  }

 private:
  static absl::StatusOr<Activation> KindOf(const Node& node) {
    const std::string approximate = node.GetString("approximate", "none");
    if (approximate == "none") return Activation::kGelu;
    if (approximate == "tanh") return Activation::kGeluTanh;
    return absl::InvalidArgumentError(
        absl::StrCat("approximate must be \"none\" or \"tanh\", not \"", approximate, "\""));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Gelu", 20, 27, GeluOp);

}  // namespace vkserve
