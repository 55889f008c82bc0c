// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Einsum (opsets 12-27), fp32, one or two operands, lowered on the GPU to
// strided copies and one batched GEMM (runtime/kernels/composite_kernel.h):
//   1. each operand is copied into scratch as [batch, M, K] (A) or
//      [batch, K, N] (B) — a transpose, a diagonal (a label repeated in one
//      term) and a broadcast (a label only the other operand has, or an
//      ellipsis dim of size 1) are all just strides;
//   2. CreateGemmKernel multiplies them, summing every label the output
//      lacks (a single operand is multiplied by a column of ones, so its
//      reductions are the same GEMM);
//   3. the [batch, M, N] product is copied into the output's label order
//      (skipped when it already is).
// Labels: batch = output labels of both operands, M = output labels of A
// only, N = of B only, K = every label the output lacks.
#include <cstring>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/composite_kernel.h"
#include "runtime/kernels/gemm/gemm_engine.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"
#include "runtime/ops/math/einsum_equation.h"

namespace vkserve {
namespace {

std::vector<std::vector<int64_t>> InputShapes(const std::vector<const TensorDesc*>& inputs) {
  std::vector<std::vector<int64_t>> shapes;
  for (const TensorDesc* t : inputs) shapes.push_back(t->shape);
  return shapes;
}

int64_t Product(const EinsumEquation& eq, const std::vector<int>& labels) {
  int64_t p = 1;
  for (int l : labels) p *= eq.sizes[l];
  return p;
}

// A copy from `src_strides` (per label) laid out densely in `order`.
StridedCopy LabelCopy(const EinsumEquation& eq, const std::vector<int64_t>& src_strides,
                      const std::vector<int>& order) {
  StridedCopy c;
  for (int l : order) {
    c.shape.push_back(eq.sizes[l]);
    c.src_strides.push_back(src_strides[l]);
  }
  c.dst_strides = Strides(c.shape);
  return c;
}

// Strides (per label) of a dense tensor laid out in `order`.
std::vector<int64_t> DenseStrides(const EinsumEquation& eq, const std::vector<int>& order) {
  std::vector<int64_t> strides(eq.sizes.size(), 0);
  int64_t s = 1;
  for (size_t i = order.size(); i-- > 0;) {
    strides[order[i]] = s;
    s *= eq.sizes[order[i]];
  }
  return strides;
}

class EinsumOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    if (node.GetString("equation", "").empty()) {
      return absl::InvalidArgumentError("attribute 'equation' is required");
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    if (ctx.inputs.empty() || ctx.inputs.size() > 2) {
      return absl::UnimplementedError(
          absl::StrCat("Einsum of ", ctx.inputs.size(), " operands (vkserve runs one or two)"));
    }
    for (size_t i = 0; i < ctx.inputs.size(); ++i) {
      ASSIGN_OR_RETURN(const TensorDesc* t, RequireInput(ctx, i));
      RETURN_IF_ERROR(CheckDataType(t->dtype, {DataType::kFloat}, absl::StrCat("input ", i)));
    }
    ASSIGN_OR_RETURN(const EinsumEquation eq,
                     ParseEinsum(ctx.node.GetString("equation", ""), InputShapes(ctx.inputs)));
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = eq.OutputShape();
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    std::vector<const TensorDesc*> inputs;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input(i));
    ASSIGN_OR_RETURN(const EinsumEquation eq,
                     ParseEinsum(ctx.node().GetString("equation", ""), InputShapes(inputs)));
    const bool two = inputs.size() == 2;
    std::vector<int> batch, m, n, k;
    std::vector<bool> in_output(eq.sizes.size(), false);
    for (int l : eq.output) in_output[l] = true;
    for (int l : eq.output) {
      const bool in_a = eq.present[0][l], in_b = two && eq.present[1][l];
      (in_a && in_b ? batch : in_a ? m : n).push_back(l);
    }
    for (size_t l = 0; l < eq.sizes.size(); ++l) {
      if (!in_output[l]) k.push_back(static_cast<int>(l));
    }
    const int64_t bt = Product(eq, batch), mm = Product(eq, m), nn = Product(eq, n),
                  kk = Product(eq, k);
    std::vector<CompositeStep> steps;
    if (bt * mm * nn == 0) return std::make_unique<CompositeKernel>(std::move(steps));
    if (kk == 0) return absl::UnimplementedError("Einsum summing over an empty label");
    auto concat = [](std::vector<int> a, const std::vector<int>& b, const std::vector<int>& c) {
      a.insert(a.end(), b.begin(), b.end());
      a.insert(a.end(), c.begin(), c.end());
      return a;
    };
    // 1. The operands as [batch, M, K] and [batch, K, N].
    const std::vector<int> a_order = concat(batch, m, k);
    const uint32_t a_scratch =
        ctx.RequestScratch(static_cast<uint64_t>(bt * mm * kk) * sizeof(float));
    ASSIGN_OR_RETURN(
        std::unique_ptr<Kernel> copy_a,
        CreateStridedCopyKernel(ctx, DataType::kFloat, {LabelCopy(eq, eq.strides[0], a_order)}));
    steps.push_back({std::move(copy_a),
                     {{NodeBuffer::Source::kInput, 0}},
                     {{NodeBuffer::Source::kScratch, a_scratch}}});
    NodeBuffer b_buffer;
    if (two) {
      const uint32_t b_scratch =
          ctx.RequestScratch(static_cast<uint64_t>(bt * kk * nn) * sizeof(float));
      ASSIGN_OR_RETURN(
          std::unique_ptr<Kernel> copy_b,
          CreateStridedCopyKernel(ctx, DataType::kFloat,
                                  {LabelCopy(eq, eq.strides[1], concat(batch, k, n))}));
      b_buffer = {NodeBuffer::Source::kScratch, b_scratch};
      steps.push_back({std::move(copy_b), {{NodeBuffer::Source::kInput, 1}}, {b_buffer}});
    } else {
      const std::vector<float> ones(static_cast<size_t>(kk), 1.0f);
      std::vector<uint8_t> bytes(ones.size() * sizeof(float));
      std::memcpy(bytes.data(), ones.data(), bytes.size());
      b_buffer = {NodeBuffer::Source::kConstant, ctx.AddConstant(std::move(bytes))};
    }
    // 2. The product, straight into the output when its order is [batch, M, N].
    const std::vector<int> c_order = concat(batch, m, n);
    const bool direct = c_order == eq.output;
    NodeBuffer c_buffer{NodeBuffer::Source::kOutput, 0};
    if (!direct) {
      c_buffer = {NodeBuffer::Source::kScratch,
                  ctx.RequestScratch(static_cast<uint64_t>(bt * mm * nn) * sizeof(float))};
    }
    GemmProblem p;
    p.m = mm;
    p.n = nn;
    p.k = kk;
    p.batch = {bt};
    p.a_batch_strides = {mm * kk};
    p.b_batch_strides = {two ? kk * nn : 0};
    ASSIGN_OR_RETURN(std::unique_ptr<Kernel> gemm, CreateGemmKernel(ctx, std::move(p)));
    steps.push_back(
        {std::move(gemm), {{NodeBuffer::Source::kScratch, a_scratch}, b_buffer}, {c_buffer}});
    // 3. Into the output's label order.
    if (!direct) {
      ASSIGN_OR_RETURN(
          std::unique_ptr<Kernel> copy_c,
          CreateStridedCopyKernel(ctx, DataType::kFloat,
                                  {LabelCopy(eq, DenseStrides(eq, c_order), eq.output)}));
      steps.push_back({std::move(copy_c), {c_buffer}, {{NodeBuffer::Source::kOutput, 0}}});
    }
    return std::make_unique<CompositeKernel>(std::move(steps));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Einsum", 12, 27, Float64ViaFloat32<EinsumOp>);

}  // namespace vkserve
