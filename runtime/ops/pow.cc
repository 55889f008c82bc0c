// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Pow (opsets 7-25) with numpy broadcasting (runtime/ops/binary_op.h), with
// C's pow semantics: a negative base takes integer exponents. GPT-2's
// tanh-GELU computes x^3 with it. The base and exponent must share a type
// (the usual float/float); ONNX also allows e.g. a float base with an int64
// exponent, which is refused by name rather than guessed.
#include "absl/strings/str_cat.h"
#include "runtime/op_registry.h"
#include "runtime/op_util.h"
#include "runtime/ops/binary_op.h"

namespace vkserve {
namespace {

class PowOp : public BinaryOp {
 public:
  PowOp() : BinaryOp(Kind::kPow) {}

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* a, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* b, RequireInput(ctx, 1));
    if (a->dtype != b->dtype) {
      return absl::UnimplementedError(absl::StrCat(
          "Pow of a ", std::string(DataTypeName(a->dtype)), " base with a ",
          std::string(DataTypeName(b->dtype)), " exponent (only matching types)"));
    }
    return BinaryOp::Infer(ctx);
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Pow", 7, 25, PowOp);

}  // namespace vkserve
