// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// FusedMatMul (com.microsoft, and its older name TransposeMatMul): ONNX
// Runtime's MatMul with transposes and a scale folded in by its optimizer
// (MatMulScaleFusion, MatmulTransposeFusion):
//
//   Y = alpha * op(A) x op(B)   with numpy MatMul broadcasting
//
// transA / transB swap an operand's last two dims (ignored for a 1-D
// operand). transBatchA means A is stored [M, b0, ..., bn, K] (or
// [K, b0, ..., bn, M] with transA): its first dim moves to just before the
// last, after the batch dims; likewise transBatchB. onnxruntime requires
// equal ranks of at least 3 for those.
//
// The node becomes a MatMul carrying the transposes and alpha as the
// attributes of runtime/ops/math/mat_mul.h, so the GEMM reads the operands
// transposed and scales in its store (and a following bias Add or activation
// still fuses into it). A transBatch operand is first brought into batch
// order by a Transpose, which needs its rank from a declared shape.
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/rewrite.h"
#include "runtime/ops/math/mat_mul.h"

namespace vkserve {
namespace {

// The rank of `name` from an initializer or a declared shape, if known.
std::optional<size_t> RankOf(const RewriteContext& ctx, const std::string& name) {
  if (const HostTensor* t = ctx.initializer(name)) return t->shape.size();
  const TensorType* type = ctx.declared_type(name);
  if (type != nullptr && type->has_shape) return type->shape.size();
  return std::nullopt;
}

class FusedMatMulRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (ctx.input(0).empty() || ctx.input(1).empty() || stored.inputs.size() > 2) {
      return absl::InvalidArgumentError("FusedMatMul takes exactly inputs A and B");
    }
    if (stored.outputs.size() != 1 || stored.outputs[0].empty()) {
      return absl::InvalidArgumentError("FusedMatMul has exactly one output");
    }
    RETURN_IF_ERROR(CheckRewriteAttribute(stored, "alpha", Attribute::Type::kFloat));
    ASSIGN_OR_RETURN(const bool trans_a, GetFlagAttribute(stored, "transA", false));
    ASSIGN_OR_RETURN(const bool trans_b, GetFlagAttribute(stored, "transB", false));
    ASSIGN_OR_RETURN(const bool batch_a, GetFlagAttribute(stored, "transBatchA", false));
    ASSIGN_OR_RETURN(const bool batch_b, GetFlagAttribute(stored, "transBatchB", false));
    std::string a = ctx.input(0);
    std::string b = ctx.input(1);
    if (batch_a || batch_b) {
      ASSIGN_OR_RETURN(a, BatchOrder(ctx, a, b, batch_a, "A"));
      ASSIGN_OR_RETURN(b, BatchOrder(ctx, b, ctx.input(0), batch_b, "B"));
    }
    Node& matmul = ctx.AddNode("MatMul", {a, b}, {stored.outputs[0]}, /*opset=*/13);
    if (trans_a) matmul.attributes[kMatMulTransAAttr] = IntAttribute(1);
    if (trans_b) matmul.attributes[kMatMulTransBAttr] = IntAttribute(1);
    const float alpha = stored.GetFloat("alpha", 1.0f);
    if (alpha != 1.0f) matmul.attributes[kMatMulScaleAttr] = FloatAttribute(alpha);
    return absl::OkStatus();
  }

 private:
  // `operand` with its first dim moved to just before its last when
  // `moved`, else itself. `other` is the other operand, whose rank must
  // match (onnxruntime's rule) where known.
  static absl::StatusOr<std::string> BatchOrder(RewriteContext& ctx, const std::string& operand,
                                                const std::string& other, bool moved,
                                                const char* which) {
    const std::optional<size_t> rank = RankOf(ctx, operand);
    const std::optional<size_t> other_rank = RankOf(ctx, other);
    if ((rank && *rank < 3) || (rank && other_rank && *rank != *other_rank)) {
      return absl::InvalidArgumentError(
          "transBatchA/transBatchB need A and B of the same rank, at least 3");
    }
    if (!moved) return operand;
    if (!rank) {
      return absl::UnimplementedError(absl::StrCat(
          "transBatch", which, " needs the rank of ", which,
          " from a declared shape (graph input, initializer or value_info); the model gives none"));
    }
    std::vector<int64_t> perm;
    for (size_t d = 1; d + 1 < *rank; ++d) perm.push_back(static_cast<int64_t>(d));
    perm.push_back(0);
    perm.push_back(static_cast<int64_t>(*rank) - 1);
    const std::string out = ctx.NewValueName(absl::StrCat(which, "_batch_order"));
    Node& transpose = ctx.AddNode("Transpose", {operand}, {out}, /*opset=*/13);
    transpose.attributes["perm"] = IntsAttribute(std::move(perm));
    return out;
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("com.microsoft", "FusedMatMul", 1, 1, FusedMatMulRewrite);
VKSERVE_REGISTER_REWRITE("com.microsoft", "TransposeMatMul", 1, 1, FusedMatMulRewrite);

}  // namespace vkserve
