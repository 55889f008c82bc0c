// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BiasAdd (com.microsoft): Y = X + bias + skip, ONNX Runtime's fusion of a
// diffusion UNet's projection bias and residual Adds.
//
//   X    [N, S, C]   (batch, image size H*W, channels)
//   bias [C]
//   skip [N, S, C]   same shape as X
//   Y    [N, S, C]
//
// Semantics from ONNX Runtime's schema (core/graph/contrib_ops/
// diffusion_defs.cc) and its only kernel, CUDA's (contrib_ops/cuda/diffusion/
// bias_add.cc, bias_add_impl.cu), which also rejects a rank other than 3, a
// bias of another rank or length, and a skip of another shape. Its C in
// {320, 640, 1280} is a limit of that kernel's launch, not of the op, and is
// not kept here.
//
// The node becomes Add(X, bias) then Add(sum, skip): after a MatMul, the
// epilogue fusion folds both into the GEMM's store (a bias Add first, then a
// residual Add), as for SkipLayerNormalization. Shapes are checked where the
// file declares them (graph inputs, value_info, initializers); beyond that,
// Add's broadcasting applies at planning.
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/op/rewrite.h"

namespace vkserve {
namespace {

absl::Status CheckRank(const std::optional<std::vector<Dim>>& shape, size_t rank,
                       const char* what) {
  if (!shape.has_value() || shape->size() == rank) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " must have ", rank, " dims, got ", shape->size()));
}

// INVALID_ARGUMENT when both dims are fixed and differ.
absl::Status CheckDim(const Dim& a, const Dim& b, const std::string& what) {
  if (!a.is_fixed() || !b.is_fixed() || a.value == b.value) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(what, ": ", a.value, " vs ", b.value));
}

absl::Status BiasAddCheckShapes(const RewriteContext& ctx) {
  const auto x = ctx.known_shape(ctx.input(0));
  const auto bias = ctx.known_shape(ctx.input(1));
  const auto skip = ctx.known_shape(ctx.input(2));
  RETURN_IF_ERROR(CheckRank(x, 3, "X ([batch, image size, channels])"));
  RETURN_IF_ERROR(CheckRank(bias, 1, "bias"));
  RETURN_IF_ERROR(CheckRank(skip, 3, "skip"));
  if (x.has_value() && bias.has_value()) {
    RETURN_IF_ERROR(CheckDim((*x)[2], (*bias)[0], "bias length differs from X's channels"));
  }
  if (x.has_value() && skip.has_value()) {
    for (size_t i = 0; i < 3; ++i) {
      RETURN_IF_ERROR(
          CheckDim((*x)[i], (*skip)[i], absl::StrCat("skip differs from X in dim ", i)));
    }
  }
  return absl::OkStatus();
}

class BiasAddRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& stored = ctx.node();
    if (stored.inputs.size() != 3 || ctx.input(0).empty() || ctx.input(1).empty() ||
        ctx.input(2).empty() || stored.outputs.size() != 1 || ctx.output(0).empty()) {
      return absl::InvalidArgumentError("BiasAdd takes inputs X, bias and skip and one output");
    }
    RETURN_IF_ERROR(BiasAddCheckShapes(ctx));
    const std::string biased = ctx.NewValueName("biased");
    ctx.AddNode("Add", {ctx.input(0), ctx.input(1)}, {biased}, /*opset=*/14);
    ctx.AddNode("Add", {biased, ctx.input(2)}, {ctx.output(0)}, /*opset=*/14);
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("com.microsoft", "BiasAdd", 1, 1, BiasAddRewrite);

}  // namespace vkserve
