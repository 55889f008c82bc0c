// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// MatMul (opsets 1-27), fp32 and fp16 (fp32 sums; double through fp32),
// with numpy semantics: a 1-D A is a row [1, K]
// and a 1-D B a column [K, 1] (the added dim is dropped from the output);
// higher ranks are batches of matrices whose batch dims broadcast against
// each other ([B, M, K] x [K, N], [B, 1, M, K] x [1, H, K, N], ...). Plus the
// fused epilogue a fusion pass records on the node (activation, residual
// add, input 2) and an optional fused bias, input 3: a float tensor
// broadcast along the output's last dim ([N], [1, N], scalar, ...) added
// before the epilogue, for folding the MatMul -> Add(bias) of transformer
// layers (ONNX MatMul itself has two inputs). Also the transposes and scale
// of mat_mul.h that rewrites of FusedMatMul set. Runs on the shared GEMM
// engine (gemm_engine.h).
#include "runtime/ops/math/mat_mul.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/gemm/gemm_engine.h"
#include "runtime/kernels/via_float32.h"
#include "runtime/op/activation.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr int64_t kMatMulMaxElements = int64_t{1} << 31;

// The mat_mul.h attributes of a node.
struct Transform {
  bool trans_a = false;
  bool trans_b = false;
  float scale = 1.0f;
};

absl::StatusOr<Transform> TransformOf(const Node& node) {
  RETURN_IF_ERROR(CheckAttributeType(node, kMatMulTransAAttr, Attribute::Type::kInt));
  RETURN_IF_ERROR(CheckAttributeType(node, kMatMulTransBAttr, Attribute::Type::kInt));
  RETURN_IF_ERROR(CheckAttributeType(node, kMatMulScaleAttr, Attribute::Type::kFloat));
  Transform t;
  const int64_t a = node.GetInt(kMatMulTransAAttr, 0);
  const int64_t b = node.GetInt(kMatMulTransBAttr, 0);
  if ((a != 0 && a != 1) || (b != 0 && b != 1)) {
    return absl::InvalidArgumentError("MatMul transpose flags must be 0 or 1");
  }
  t.trans_a = a == 1;
  t.trans_b = b == 1;
  t.scale = node.GetFloat(kMatMulScaleAttr, 1.0f);
  return t;
}

// Resolved shapes of one MatMul at one signature.
struct MatMulShape {
  DataType dtype = DataType::kFloat;
  bool b_f16 = false;  // an fp16 B with an fp32 A (FP16 precision's weights)
  int64_t m = 0, n = 0, k = 0;
  bool a_trans = false;  // the stored matrices are [K, M] / [N, K]
  bool b_trans = false;
  std::vector<int64_t> batch;      // broadcast batch dims
  std::vector<int64_t> a_strides;  // A / B element strides per batch dim (0: broadcast)
  std::vector<int64_t> b_strides;
  std::vector<int64_t> output;
};

// Element strides of `dims` (an operand's batch dims, right-aligned to
// `rank` dims) for a matrix of `matrix` elements; 0 where the dim is 1.
std::vector<int64_t> BatchStrides(const std::vector<int64_t>& dims, size_t rank, int64_t matrix) {
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = matrix;
  for (size_t i = 0; i < dims.size(); ++i) {
    const size_t d = dims.size() - 1 - i;
    strides[rank - 1 - i] = dims[d] == 1 ? 0 : stride;
    stride *= dims[d];
  }
  return strides;
}

// An fp16 B with an fp32 A is the FP16 precision's stored weight
// (runtime/passes/fp16_weights.h): `fp16` is the node's precision.
absl::StatusOr<MatMulShape> ResolveMatMul(const TensorDesc& a, const TensorDesc& b,
                                          const Transform& t, bool fp16) {
  RETURN_IF_ERROR(CheckDataType(a.dtype, {DataType::kFloat, DataType::kFloat16}, "MatMul input A"));
  const bool b_f16 = fp16 && a.dtype == DataType::kFloat && b.dtype == DataType::kFloat16;
  if (b.dtype != a.dtype && !b_f16) {
    return absl::InvalidArgumentError(absl::StrCat("MatMul input B is ",
                                                   std::string(DataTypeName(b.dtype)), "; A is ",
                                                   std::string(DataTypeName(a.dtype))));
  }
  if (a.shape.empty() || b.shape.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("MatMul inputs must not be scalars; A is ",
                                                   ShapeString(a.shape), ", B ",
                                                   ShapeString(b.shape)));
  }
  std::vector<int64_t> as = a.shape, bs = b.shape;
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  MatMulShape s;
  s.dtype = a.dtype;
  s.b_f16 = b_f16;
  // A 1-D operand's transpose is itself.
  s.a_trans = t.trans_a && a.shape.size() > 1;
  s.b_trans = t.trans_b && b.shape.size() > 1;
  s.m = s.a_trans ? as.back() : as[as.size() - 2];
  s.k = s.a_trans ? as[as.size() - 2] : as.back();
  s.n = s.b_trans ? bs[bs.size() - 2] : bs.back();
  if ((s.b_trans ? bs.back() : bs[bs.size() - 2]) != s.k) {
    return absl::InvalidArgumentError(absl::StrCat("A ", ShapeString(a.shape), " and B ",
                                                   ShapeString(b.shape),
                                                   " have different inner dimensions"));
  }
  const std::vector<int64_t> a_batch(as.begin(), as.end() - 2);
  const std::vector<int64_t> b_batch(bs.begin(), bs.end() - 2);
  ASSIGN_OR_RETURN(s.batch, BroadcastShapes(a_batch, b_batch));
  s.a_strides = BatchStrides(a_batch, s.batch.size(), s.m * s.k);
  s.b_strides = BatchStrides(b_batch, s.batch.size(), s.k * s.n);
  s.output = s.batch;
  if (a.shape.size() > 1) s.output.push_back(s.m);
  if (b.shape.size() > 1) s.output.push_back(s.n);
  if (a.num_elements() >= kMatMulMaxElements || b.num_elements() >= kMatMulMaxElements ||
      NumElements(s.output) >= kMatMulMaxElements) {
    return absl::UnimplementedError("MatMul tensors of 2^31 elements or more are not supported");
  }
  return s;
}

constexpr size_t kBiasInput = 3;

// The fused bias's element stride along N (0: one value for every column),
// or INVALID_ARGUMENT unless it broadcasts along the last dim of `output`.
absl::StatusOr<int64_t> BiasStride(const TensorDesc& bias, const std::vector<int64_t>& output,
                                   DataType dtype) {
  const std::vector<int64_t>& bs = bias.shape;
  bool ok = bias.dtype == dtype && bs.size() <= std::max<size_t>(output.size(), 1);
  for (size_t i = 0; ok && i + 1 < bs.size(); ++i) ok = bs[i] == 1;
  const int64_t last = bs.empty() ? 1 : bs.back();
  const int64_t n = output.empty() ? 1 : output.back();
  if (!ok || (last != 1 && last != n)) {
    return absl::InvalidArgumentError(absl::StrCat("fused bias ", bias.ToString(),
                                                   " does not broadcast along the last dim of ",
                                                   ShapeString(output)));
  }
  return last == 1 ? 0 : 1;
}

class MatMulOp : public Op {
 public:
  // B (input 1) is rounded to fp16 as it is loaded at FP16 precision.
  const OpTraits& traits() const override {
    static const OpTraits kTraits = [] {
      OpTraits t =
          GemmEpilogueTraits({.residual_input = 2, .bias_input = static_cast<int>(kBiasInput)});
      t.half_rounded_weight_input = 1;
      return t;
    }();
    return kTraits;
  }

  absl::Status Validate(const Node& node) const override {
    if (node.inputs.size() < 2 || node.inputs[0].empty() || node.inputs[1].empty()) {
      return absl::InvalidArgumentError("MatMul needs inputs A and B");
    }
    RETURN_IF_ERROR(TransformOf(node).status());
    return GetEpilogue(node).status();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* a, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* b, RequireInput(ctx, 1));
    ASSIGN_OR_RETURN(const Transform t, TransformOf(ctx.node));
    ASSIGN_OR_RETURN(MatMulShape s,
                     ResolveMatMul(*a, *b, t, GetPrecision(ctx.node) == Precision::kFp16));
    ASSIGN_OR_RETURN(Epilogue e, GetEpilogue(ctx.node));
    if (e.residual != Epilogue::Residual::kNone) {
      ASSIGN_OR_RETURN(const TensorDesc* r, RequireInput(ctx, e.residual_input));
      if (r->dtype != s.dtype || r->shape != s.output) {
        return absl::InvalidArgumentError(
            absl::StrCat("fused residual ", r->ToString(), " must be ",
                         std::string(DataTypeName(s.dtype)), ShapeString(s.output)));
      }
    }
    if (const TensorDesc* bias = ctx.input(kBiasInput)) {
      RETURN_IF_ERROR(BiasStride(*bias, s.output, s.dtype).status());
    }
    ctx.outputs.resize(1);
    ctx.outputs[0].dtype = s.dtype;
    ctx.outputs[0].shape = s.output;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const Transform t, TransformOf(ctx.node()));
    ASSIGN_OR_RETURN(MatMulShape s, ResolveMatMul(*ctx.input(0), *ctx.input(1), t,
                                                  GetPrecision(ctx.node()) == Precision::kFp16));
    GemmProblem p;
    p.m = s.m;
    p.n = s.n;
    p.k = s.k;
    p.a_trans = s.a_trans;
    p.b_trans = s.b_trans;
    p.alpha = t.scale;
    p.batch = s.batch;
    p.a_batch_strides = s.a_strides;
    p.b_batch_strides = s.b_strides;
    p.dtype = s.dtype;
    p.b_f16 = s.b_f16;
    ASSIGN_OR_RETURN(p.epilogue, GetEpilogue(ctx.node()));
    if (const TensorDesc* bias = ctx.input(kBiasInput)) {
      ASSIGN_OR_RETURN(p.c_stride_n, BiasStride(*bias, s.output, s.dtype));
      p.c_input = static_cast<int>(kBiasInput);
      p.c_stride_m = 0;
      p.beta = 1.0f;
    }
    return CreateGemmKernel(ctx, std::move(p));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "MatMul", 1, 27, Float64ViaFloat32<MatMulOp>);

}  // namespace vkserve
