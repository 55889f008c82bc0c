// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Gemm (opsets 1-27), fp32 and fp16 (fp32 sums): Y = alpha * op(A) x op(B) + beta * C with
// transA / transB, C optional (opset >= 11) and unidirectionally broadcast to
// [M, N] (scalar, [N], [1, N], [M, 1], [M, N]), plus the fused epilogue a
// fusion pass records on the node (activation, residual add). Runs on the
// GEMM engine (gemm_engine.h).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/gemm/gemm_engine.h"
#include "runtime/op/activation.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr int64_t kGemmMaxElements = int64_t{1} << 31;

// Resolved shapes of one Gemm at one signature.
struct GemmOpShape {
  DataType dtype = DataType::kFloat;
  bool b_f16 = false;  // an fp16 B with fp32 A, C and Y (FP16 precision's weights)
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  bool has_c = false;  // present and contributing (beta != 0)
  int64_t c_stride_m = 0, c_stride_n = 0;
};

absl::StatusOr<GemmOpShape> ResolveGemm(const Node& node, const TensorDesc& a, const TensorDesc& b,
                                        const TensorDesc* c) {
  RETURN_IF_ERROR(CheckDataType(a.dtype, {DataType::kFloat, DataType::kFloat16}, "Gemm input A"));
  const bool b_f16 = GetPrecision(node) == Precision::kFp16 && a.dtype == DataType::kFloat &&
                     b.dtype == DataType::kFloat16;
  for (const TensorDesc* t : {&b, c}) {
    if (t != nullptr && t->dtype != a.dtype && !(t == &b && b_f16)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Gemm inputs B and C must be ", std::string(DataTypeName(a.dtype)),
                       " as A is; got ", std::string(DataTypeName(t->dtype))));
    }
  }
  if (a.shape.size() != 2 || b.shape.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("A ", ShapeString(a.shape), " and B ", ShapeString(b.shape), " must be 2-D"));
  }
  GemmOpShape s;
  s.dtype = a.dtype;
  s.b_f16 = b_f16;
  s.trans_a = node.GetInt("transA", 0) != 0;
  s.trans_b = node.GetInt("transB", 0) != 0;
  s.m = a.shape[s.trans_a ? 1 : 0];
  s.k = a.shape[s.trans_a ? 0 : 1];
  const int64_t kb = b.shape[s.trans_b ? 1 : 0];
  s.n = b.shape[s.trans_b ? 0 : 1];
  if (kb != s.k) {
    return absl::InvalidArgumentError(
        absl::StrCat("A ", ShapeString(a.shape), (s.trans_a ? " (transposed)" : ""), " and B ",
                     ShapeString(b.shape), (s.trans_b ? " (transposed)" : ""),
                     " have different inner dimensions"));
  }
  if (c != nullptr) {
    const std::vector<int64_t>& cs = c->shape;
    const int64_t c0 = cs.size() == 2 ? cs[0] : 1;
    const int64_t c1 = cs.empty() ? 1 : cs.back();
    if (cs.size() > 2 || (c0 != 1 && c0 != s.m) || (c1 != 1 && c1 != s.n)) {
      return absl::InvalidArgumentError(
          absl::StrCat("C ", ShapeString(cs), " does not broadcast to [", s.m, ",", s.n, "]"));
    }
    s.has_c = node.GetFloat("beta", 1.0f) != 0.0f;
    s.c_stride_n = c1 == 1 ? 0 : 1;
    s.c_stride_m = c0 == 1 ? 0 : c1;
  }
  for (const TensorDesc* t : {&a, &b, c}) {
    if (t != nullptr && t->num_elements() >= kGemmMaxElements) {
      return absl::UnimplementedError("Gemm tensors of 2^31 elements or more are not supported");
    }
  }
  if (s.m * s.n >= kGemmMaxElements) {
    return absl::UnimplementedError("Gemm outputs of 2^31 elements or more are not supported");
  }
  return s;
}

class GemmOp : public Op {
 public:
  // B (input 1) is rounded to fp16 as it is loaded at FP16 precision.
  const OpTraits& traits() const override {
    static const OpTraits kTraits = [] {
      OpTraits t = GemmEpilogueTraits({.residual_input = 3, .bias_input = -1});
      t.half_rounded_weight_input = 1;
      return t;
    }();
    return kTraits;
  }

  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "transA", Attribute::Type::kInt));
    RETURN_IF_ERROR(CheckAttributeType(node, "transB", Attribute::Type::kInt));
    RETURN_IF_ERROR(CheckAttributeType(node, "alpha", Attribute::Type::kFloat));
    RETURN_IF_ERROR(CheckAttributeType(node, "beta", Attribute::Type::kFloat));
    if (node.inputs.size() < 2 || node.inputs[0].empty() || node.inputs[1].empty()) {
      return absl::InvalidArgumentError("Gemm needs inputs A and B");
    }
    return GetEpilogue(node).status();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* a, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* b, RequireInput(ctx, 1));
    ASSIGN_OR_RETURN(GemmOpShape s, ResolveGemm(ctx.node, *a, *b, ctx.input(2)));
    const std::vector<int64_t> output = {s.m, s.n};
    ASSIGN_OR_RETURN(Epilogue e, GetEpilogue(ctx.node));
    if (e.residual != Epilogue::Residual::kNone) {
      ASSIGN_OR_RETURN(const TensorDesc* r, RequireInput(ctx, e.residual_input));
      if (r->dtype != s.dtype || r->shape != output) {
        return absl::InvalidArgumentError(
            absl::StrCat("fused residual ", r->ToString(), " must be ",
                         std::string(DataTypeName(s.dtype)), ShapeString(output)));
      }
    }
    ctx.outputs.resize(1);
    ctx.outputs[0].dtype = s.dtype;
    ctx.outputs[0].shape = output;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    ASSIGN_OR_RETURN(GemmOpShape s, ResolveGemm(node, *ctx.input(0), *ctx.input(1), ctx.input(2)));
    GemmProblem p;
    p.m = s.m;
    p.n = s.n;
    p.k = s.k;
    p.a_trans = s.trans_a;
    p.b_trans = s.trans_b;
    p.dtype = s.dtype;
    p.b_f16 = s.b_f16;
    p.alpha = node.GetFloat("alpha", 1.0f);
    p.beta = node.GetFloat("beta", 1.0f);
    if (s.has_c) {
      p.c_input = 2;
      p.c_stride_m = s.c_stride_m;
      p.c_stride_n = s.c_stride_n;
    }
    ASSIGN_OR_RETURN(p.epilogue, GetEpilogue(node));
    return CreateGemmKernel(ctx, std::move(p));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Gemm", 1, 27, GemmOp);

}  // namespace vkserve
