// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/kernels/attention/attention_lowering.h"

#include <algorithm>
#include <utility>

#include "base/status_macros.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/gemm/gemm_engine.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

// Records `inner` with its inputs advanced by byte offsets: the GEMM engine
// binds whole buffers, and packed Q/K/V sits at an offset in one of them.
// UnfusedAttentionFits keeps the offsets bindable.
class OffsetInputsKernel : public Kernel {
 public:
  OffsetInputsKernel(std::unique_ptr<Kernel> inner, std::vector<uint64_t> byte_offsets)
      : inner_(std::move(inner)), offsets_(std::move(byte_offsets)) {}

  absl::Status Record(const RecordContext& ctx) const override {
    RecordContext sub = ctx;
    for (size_t i = 0; i < offsets_.size() && i < sub.inputs.size(); ++i) {
      gpu::BufferRange& r = sub.inputs[i];
      if (offsets_[i] > r.size)
        return absl::InternalError("packed attention operand offset past its buffer");
      r.offset += offsets_[i];
      r.size -= offsets_[i];
    }
    return inner_->Record(sub);
  }

 private:
  std::unique_ptr<Kernel> inner_;
  std::vector<uint64_t> offsets_;
};

constexpr uint32_t kSoftmaxLocal = 128;  // Vulkan's minimum invocation limit

// Heads of Q per KV head (grouped-query attention).
int64_t Group(const FlashAttentionProblem& p) { return p.heads / p.kv_heads; }

// A GEMM step reading inputs {a, b} at element offsets {a_off, b_off}.
absl::StatusOr<CompositeStep> GemmStep(KernelContext& ctx, GemmProblem g, NodeBuffer a,
                                       NodeBuffer b, int64_t a_off, int64_t b_off, NodeBuffer out) {
  g.a_input = 0;
  g.b_input = 1;
  ASSIGN_OR_RETURN(std::unique_ptr<Kernel> kernel, CreateGemmKernel(ctx, std::move(g)));
  if (a_off != 0 || b_off != 0) {
    kernel = std::make_unique<OffsetInputsKernel>(
        std::move(kernel), std::vector<uint64_t>{static_cast<uint64_t>(a_off) * sizeof(float),
                                                 static_cast<uint64_t>(b_off) * sizeof(float)});
  }
  CompositeStep step;
  step.kernel = std::move(kernel);
  step.inputs = {a, b};
  step.outputs = {out};
  return step;
}

// S[b, h] = scale * Q[b, h] K[b, h / group]' over batch dims (b, kv head, group).
absl::StatusOr<CompositeStep> ScoresStep(KernelContext& ctx, const FlashAttentionProblem& p,
                                         const AttentionBuffers& io, uint32_t scores) {
  const int64_t group = Group(p);
  GemmProblem g;
  g.m = p.queries;
  g.n = p.keys;
  g.k = p.head_size;
  g.b_trans = true;  // K rows are [Sk, E]
  g.lda = p.q_strides[2];
  g.ldb = p.k_strides[2];
  g.batch = {p.batch, p.kv_heads, group};
  g.a_batch_strides = {p.q_strides[0], p.q_strides[1] * group, p.q_strides[1]};
  g.b_batch_strides = {p.k_strides[0], p.k_strides[1], 0};
  g.alpha = p.scale;
  g.beta = 0.0f;
  return GemmStep(ctx, std::move(g), io.q, io.k, p.offsets[0], p.offsets[1],
                  {NodeBuffer::Source::kScratch, scores});
}

// The masked softmax over the scores, in place.
absl::StatusOr<CompositeStep> SoftmaxStep(KernelContext& ctx, const FlashAttentionProblem& p,
                                          const AttentionBuffers& io, uint32_t scores) {
  const int64_t rows = p.batch * p.heads * p.queries;
  DispatchStep step;
  step.push.U32(U32(rows)).U32(U32(p.heads)).U32(U32(p.queries)).U32(U32(p.keys)).U32(U32(p.past));
  for (int64_t v : p.mask_strides) step.push.U32(U32(v));
  step.push.U32(U32(p.mask_len));
  ASSIGN_OR_RETURN(
      step.pipeline,
      ctx.GetPipeline(
          "ops/attention_softmax", 2, step.push.size(), {kSoftmaxLocal, 1, 1},
          {static_cast<uint32_t>(p.mask), p.causal ? 1u : 0u, p.empty_rows_zero ? 1u : 0u}));
  step.groups = GroupsFor(static_cast<uint64_t>(rows), 1, ctx.device());
  step.bindings = {BufferRef::Scratch(scores, gpu::Access::kReadWrite), BufferRef::Input(0)};
  CompositeStep out;
  out.kernel = MakeDispatchKernel(std::move(step));
  out.inputs = {p.mask != FlashAttentionProblem::Mask::kNone ? io.mask : io.q};
  return out;
}

// Y[b, h] = P[b, h] V[b, h / group], into Y's strides when its heads are one
// stride apart (z-linear over the flattened batch), else into dense scratch.
absl::StatusOr<CompositeStep> ValuesStep(KernelContext& ctx, const FlashAttentionProblem& p,
                                         const AttentionBuffers& io, uint32_t scores, bool direct,
                                         NodeBuffer out) {
  const int64_t group = Group(p);
  const int64_t plane = p.queries * p.keys;
  GemmProblem g;
  g.m = p.queries;
  g.n = p.head_size;
  g.k = p.keys;
  g.lda = p.keys;
  g.ldb = p.v_strides[2];
  g.batch = {p.batch, p.kv_heads, group};
  g.a_batch_strides = {p.heads * plane, group * plane, plane};
  g.b_batch_strides = {p.v_strides[0], p.v_strides[1], 0};
  g.beta = 0.0f;
  if (direct) g.output = OutputView{p.head_size, p.y_strides[1], p.y_strides[2], 0};
  return GemmStep(ctx, std::move(g), {NodeBuffer::Source::kScratch, scores}, io.v, 0, p.offsets[2],
                  out);
}

}  // namespace

absl::StatusOr<std::vector<CompositeStep>> UnfusedAttentionSteps(KernelContext& ctx,
                                                                 const FlashAttentionProblem& p,
                                                                 const AttentionBuffers& io) {
  const uint64_t score_elements = static_cast<uint64_t>(p.batch) * p.heads * p.queries * p.keys;
  const uint32_t scores = ctx.RequestScratch(score_elements * sizeof(float));
  std::vector<CompositeStep> steps;
  ASSIGN_OR_RETURN(CompositeStep s, ScoresStep(ctx, p, io, scores));
  steps.push_back(std::move(s));
  ASSIGN_OR_RETURN(s, SoftmaxStep(ctx, p, io, scores));
  steps.push_back(std::move(s));
  const bool direct = p.batch == 1 || p.y_strides[0] == p.heads * p.y_strides[1];
  if (direct) {
    ASSIGN_OR_RETURN(s, ValuesStep(ctx, p, io, scores, true, io.y));
    steps.push_back(std::move(s));
    return steps;
  }
  const int64_t e = p.head_size;
  const uint32_t dense =
      ctx.RequestScratch(static_cast<uint64_t>(p.batch) * p.heads * p.queries * e * sizeof(float));
  ASSIGN_OR_RETURN(s, ValuesStep(ctx, p, io, scores, false, {NodeBuffer::Source::kScratch, dense}));
  steps.push_back(std::move(s));
  StridedCopy copy;
  copy.shape = {p.batch, p.heads, p.queries, e};
  copy.src_strides = {p.heads * p.queries * e, p.queries * e, e, 1};
  copy.dst_strides = {p.y_strides[0], p.y_strides[1], p.y_strides[2], 1};
  ASSIGN_OR_RETURN(std::unique_ptr<Kernel> kernel,
                   CreateStridedCopyKernel(ctx, DataType::kFloat, {copy}));
  CompositeStep c;
  c.kernel = std::move(kernel);
  c.inputs = {{NodeBuffer::Source::kScratch, dense}};
  c.outputs = {io.y};
  steps.push_back(std::move(c));
  return steps;
}

}  // namespace vkserve
