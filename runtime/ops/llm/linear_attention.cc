// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LinearAttention (opset 27): recurrent linear attention with a [d_k, d_v]
// state per (batch, kv head), update_rule "linear", "gated" (decay),
// "delta" (beta) or "gated_delta" (both, the default); grouped query heads
// read their kv head's state; past_state seeds it and present_state returns
// it. One dispatch (shaders/attention/linear_attention.comp), one invocation per
// state column walking the sequence, so decoding steps (T = 1) and short
// prefills are cheap and long prefills run T steps in series (chunk_size, a
// tuning hint, is not used). fp32 inside; float16, bfloat16 and double
// convert at the node's boundary.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kLinearAttentionLocal = 64;
// Each invocation keeps a state column of d_k floats in registers.
constexpr int64_t kMaxKeyDim = 512;

enum LinearAttentionInput { kQuery = 0, kKey, kValue, kPastState, kDecay, kBeta };

struct Problem {
  int64_t batch = 0, steps = 0, hq = 0, hkv = 0, dk = 0, dv = 0;
  bool gating = false, delta = false, decay_per_key = false, beta_per_head = true;
  float scale = 1.0f;
};

absl::Status CheckShape(const TensorDesc* t, const char* what, const std::vector<int64_t>& want) {
  if (t->shape != want) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LinearAttention ", what, " is ", ShapeString(t->shape), ", expected ", ShapeString(want)));
  }
  return absl::OkStatus();
}

absl::StatusOr<Problem> LinearAttentionProblemOf(
    const Node& node, const std::function<const TensorDesc*(size_t)>& input) {
  const TensorDesc *q = input(kQuery), *k = input(kKey), *v = input(kValue);
  if (q == nullptr || k == nullptr || v == nullptr) {
    return absl::InvalidArgumentError("LinearAttention needs query, key and value");
  }
  for (const TensorDesc* t : {q, k, v, input(kPastState), input(kDecay), input(kBeta)}) {
    if (t != nullptr && t->dtype != DataType::kFloat) {
      return absl::UnimplementedError("LinearAttention with inputs of different float types");
    }
  }
  if (q->shape.size() != 3 || k->shape.size() != 3 || v->shape.size() != 3) {
    return absl::InvalidArgumentError(
        "LinearAttention query, key and value must be [batch, steps, heads * dim]");
  }
  Problem p;
  p.hq = node.GetInt("q_num_heads", 0);
  p.hkv = node.GetInt("kv_num_heads", 0);
  if (p.hq <= 0 || p.hkv <= 0 || p.hq % p.hkv != 0) {
    return absl::InvalidArgumentError(
        "q_num_heads must be a positive multiple of a positive kv_num_heads");
  }
  p.batch = q->shape[0];
  p.steps = q->shape[1];
  if (q->shape[2] % p.hq != 0 || v->shape[2] % p.hkv != 0) {
    return absl::InvalidArgumentError("query's or value's last dim does not split into its heads");
  }
  p.dk = q->shape[2] / p.hq;
  p.dv = v->shape[2] / p.hkv;
  RETURN_IF_ERROR(CheckShape(k, "key", {p.batch, p.steps, p.hkv * p.dk}));
  RETURN_IF_ERROR(CheckShape(v, "value", {p.batch, p.steps, p.hkv * p.dv}));
  if (p.dk > kMaxKeyDim) {
    return absl::UnimplementedError(
        absl::StrCat("LinearAttention key head size ", p.dk, " (at most ", kMaxKeyDim, ")"));
  }
  const std::string rule = node.GetString("update_rule", "gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown update_rule \"", rule.substr(0, 32), "\""));
  }
  p.gating = rule == "gated" || rule == "gated_delta";
  p.delta = rule == "delta" || rule == "gated_delta";
  if (p.gating != (input(kDecay) != nullptr) || p.delta != (input(kBeta) != nullptr)) {
    return absl::InvalidArgumentError(absl::StrCat("update_rule \"", rule, "\" ",
                                                   p.gating ? "needs" : "forbids", " decay and ",
                                                   p.delta ? "needs" : "forbids", " beta"));
  }
  if (const TensorDesc* past = input(kPastState)) {
    RETURN_IF_ERROR(CheckShape(past, "past_state", {p.batch, p.hkv, p.dk, p.dv}));
  }
  if (const TensorDesc* decay = input(kDecay)) {
    p.decay_per_key = decay->shape.size() == 3 && decay->shape.back() == p.hkv * p.dk && p.dk != 1;
    RETURN_IF_ERROR(
        CheckShape(decay, "decay", {p.batch, p.steps, p.decay_per_key ? p.hkv * p.dk : p.hkv}));
  }
  if (const TensorDesc* beta = input(kBeta)) {
    p.beta_per_head = !(beta->shape.size() == 3 && beta->shape.back() == 1 && p.hkv != 1);
    RETURN_IF_ERROR(CheckShape(beta, "beta", {p.batch, p.steps, p.beta_per_head ? p.hkv : 1}));
  }
  const float scale = node.GetFloat("scale", 0.0f);
  p.scale = scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(p.dk)) : scale;
  return p;
}

class LinearAttentionOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    for (const char* name : {"q_num_heads", "kv_num_heads", "chunk_size"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kInt));
    }
    RETURN_IF_ERROR(CheckAttributeType(node, "scale", Attribute::Type::kFloat));
    return CheckAttributeType(node, "update_rule", Attribute::Type::kString);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const Problem p,
                     LinearAttentionProblemOf(ctx.node, [&](size_t i) { return ctx.input(i); }));
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = {p.batch, p.steps, p.hq * p.dv};
    if (ctx.outputs.size() > 1) {
      ctx.outputs[1].dtype = DataType::kFloat;
      ctx.outputs[1].shape = {p.batch, p.hkv, p.dk, p.dv};
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const Problem p,
                     LinearAttentionProblemOf(ctx.node(), [&](size_t i) { return ctx.input(i); }));
    const uint64_t columns = static_cast<uint64_t>(p.batch * p.hkv * p.dv);
    const uint64_t largest =
        static_cast<uint64_t>(p.batch * p.steps * std::max(p.hq * p.dk, p.hq * p.dv));
    if (largest >= (uint64_t{1} << 31))
      return absl::UnimplementedError("LinearAttention: tensors too large");
    if (columns == 0 || p.steps == 0) return MakeEmptyKernel();
    const bool write_state = ctx.num_outputs() > 1 && ctx.output(1).dtype != DataType::kUndefined;
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(columns)).U32(static_cast<uint32_t>(p.steps));
    step.push.U32(static_cast<uint32_t>(p.hq)).U32(static_cast<uint32_t>(p.hkv));
    step.push.U32(static_cast<uint32_t>(p.dv)).F32(p.scale);
    ASSIGN_OR_RETURN(
        step.pipeline,
        ctx.GetPipeline(
            "ops/linear_attention", 8, step.push.size(), {kLinearAttentionLocal, 1, 1},
            {static_cast<uint32_t>(p.dk), p.gating, p.delta, ctx.input(kPastState) != nullptr,
             p.decay_per_key, p.beta_per_head, write_state}));
    // Omitted inputs are never read: the query stands in for them.
    auto optional = [&](LinearAttentionInput i) {
      return BufferRef::Input(ctx.input(i) != nullptr ? i : kQuery);
    };
    step.bindings = {BufferRef::Input(kQuery),
                     BufferRef::Input(kKey),
                     BufferRef::Input(kValue),
                     optional(kPastState),
                     optional(kDecay),
                     optional(kBeta),
                     BufferRef::Output(0),
                     write_state ? BufferRef::Output(1)
                                 : BufferRef::Scratch(ctx.RequestScratch(4), gpu::Access::kWrite)};
    step.groups = GroupsFor(columns, kLinearAttentionLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "LinearAttention", 27, 27, FloatsViaFloat32<LinearAttentionOp>);

}  // namespace vkserve
