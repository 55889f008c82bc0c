// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// com.microsoft Attention (opset 1), which ONNX Runtime's AttentionFusion
// writes for the self-attention of BERT-like encoders and GPT-2: input
// [B, S, Din] times packed weights [Din, D + D + Dv] (Q, K and V columns in
// that order) plus bias, split into num_heads heads, softmax(Q K' * scale +
// masks) V, heads merged back into [B, S, Dv].
//
// The packed weight is split on the host into three [Din, D] / [Din, Dv]
// initializers, each a MatMul whose bias Add the epilogue fusion merges into
// its store: three GEMMs that write Q, K and V where the head Transposes read
// them, instead of one GEMM and a copy to split its output. The scale
// (attribute `scale`, or 1/sqrt(head_size) when absent or 0) is folded into
// Q's weights and bias. The masks (mask_index in all of ORT's CPU forms but
// the 4-D one, unidirectional) go to vkserve's AttentionMask op
// (runtime/ops/llm/attention_mask.cc), which tells the forms apart by shape.
// Without mask_index and past, the core is one ONNX Attention node instead
// (attention::AddFused), which runs the fused attention kernel.
//
// past [2, B, N, P, H] (GPT-2 decoding with a KV cache) is concatenated in
// front of this step's keys and values, which also make the optional
// present [2, B, N, P + S, H]; the causal mask then lets query s see keys up
// to P + s.
//
// Not supported (UNIMPLEMENTED): past_present_share_buffer (a preallocated
// cache with past_sequence_length), do_rotary, weights that are not
// initializers.
#include <cmath>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/lowering/contrib/attention_util.h"

namespace vkserve {
namespace {

using attention::CoreInputs;

constexpr int64_t kAttentionOpset = 17;

// Inputs and outputs by position, as in ORT's schema.
enum AttentionInput : size_t {
  kInput,
  kWeights,
  kBias,
  kMaskIndex,
  kPast,
  kAttentionBias,
  kPastSequenceLength
};

// Hidden sizes of Q, K and V, checked against the weights as ORT's
// AttentionBase::CheckInputs does.
struct Sizes {
  int64_t q = 0, k = 0, v = 0;
  int64_t total() const { return q + k + v; }
};

absl::StatusOr<Sizes> HiddenSizes(const Node& node, const HostTensor& weights, int64_t num_heads) {
  ASSIGN_OR_RETURN(const std::vector<int64_t> qkv, attention::IntsAttr(node, "qkv_hidden_sizes"));
  const int64_t columns = weights.shape[1];
  Sizes s;
  if (qkv.empty()) {
    if (columns % 3 != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("weights have ", columns, " columns, not 3 * hidden_size"));
    }
    s.q = s.k = s.v = columns / 3;
  } else {
    if (qkv.size() != 3) return absl::InvalidArgumentError("qkv_hidden_sizes must have 3 elements");
    for (int64_t h : qkv) {
      if (h <= 0 || h > columns) {
        return absl::InvalidArgumentError(
            absl::StrCat("qkv_hidden_sizes has ", h, " for ", columns, " weight columns"));
      }
    }
    s = Sizes{qkv[0], qkv[1], qkv[2]};
    if (s.q != s.k)
      return absl::InvalidArgumentError("qkv_hidden_sizes must have equal Q and K sizes");
    if (s.total() != columns) {
      return absl::InvalidArgumentError(absl::StrCat("qkv_hidden_sizes sum to ", s.total(),
                                                     ", the weights have ", columns, " columns"));
    }
  }
  if (s.q % num_heads != 0 || s.v % num_heads != 0) {
    return absl::InvalidArgumentError(absl::StrCat("hidden sizes ", s.q, " and ", s.v,
                                                   " are not divisible by num_heads ", num_heads));
  }
  return s;
}

// Checks attributes and inputs that vkserve does not run.
absl::Status AttentionCheckSupported(const RewriteContext& ctx) {
  const Node& node = ctx.node();
  ASSIGN_OR_RETURN(const bool rotary, attention::BoolAttr(node, "do_rotary"));
  if (rotary)
    return absl::UnimplementedError("do_rotary=1 (rotary position embedding) is not supported");
  if (ctx.input(kInput).empty() || ctx.input(kWeights).empty()) {
    return absl::InvalidArgumentError("Attention needs inputs 'input' and 'weights'");
  }
  RETURN_IF_ERROR(attention::CheckDeclaredRank3(ctx, ctx.input(kInput), "input"));
  ASSIGN_OR_RETURN(const bool share, attention::BoolAttr(node, "past_present_share_buffer"));
  if (share && !ctx.input(kPast).empty()) {
    return absl::UnimplementedError(
        "past_present_share_buffer=1 (a preallocated KV cache) is not supported");
  }
  return attention::RefuseInput(ctx, kPastSequenceLength, "past_sequence_length");
}

// Keys and values with the past state: K [B, N, P + S, H] and V, each the
// past's part followed by this step's, and the present output when read.
// Returns {K transposed to [B, N, H, P + S], V}.
absl::StatusOr<std::pair<std::string, std::string>> WithPast(RewriteContext& ctx,
                                                             const std::string& k,
                                                             const std::string& v, int64_t heads,
                                                             const Sizes& s) {
  if (s.k != s.v) {
    return absl::InvalidArgumentError(
        absl::StrCat("past and present need equal K and V hidden sizes, got ", s.k, " and ", s.v));
  }
  std::string kh = attention::SplitHeads(ctx, k, heads, {0, 2, 1, 3}, "k");
  std::string vh = attention::SplitHeads(ctx, v, heads, {0, 2, 1, 3}, "v");
  const std::string& past = ctx.input(kPast);
  if (!past.empty()) {
    auto part = [&](int64_t i, const std::string& hint) {
      std::string out = ctx.NewValueName(hint);
      Node& g = ctx.AddNode(
          "Gather", {past, ctx.AddInitializer(hint + "_index", HostTensor::FromInts({i}, {}))},
          {out}, kAttentionOpset);
      Attribute axis;
      axis.type = Attribute::Type::kInt;
      axis.i = 0;
      g.attributes["axis"] = axis;
      return out;
    };
    kh = attention::Concat(ctx, {part(0, "past_k"), kh}, 2, "k_all");
    vh = attention::Concat(ctx, {part(1, "past_v"), vh}, 2, "v_all");
  }
  if (attention::IsRead(ctx.graph(), ctx.output(1))) {
    const std::string axes = attention::AddInts(ctx, "stack_axes", {0});
    std::string k1 = ctx.NewValueName("present_k");
    ctx.AddNode("Unsqueeze", {kh, axes}, {k1}, kAttentionOpset);
    std::string v1 = ctx.NewValueName("present_v");
    ctx.AddNode("Unsqueeze", {vh, axes}, {v1}, kAttentionOpset);
    attention::Concat(ctx, {k1, v1}, 0, "present", ctx.output(1));
  }
  return std::make_pair(attention::Transpose(ctx, kh, {0, 1, 3, 2}, "k_all"), vh);
}

// The Q, K or V projection: MatMul with columns [begin, end) of the weights
// and of the bias, times `scale`; returns the projection's value.
absl::StatusOr<std::string> Projection(RewriteContext& ctx, const HostTensor& weights,
                                       int64_t begin, int64_t end, float scale,
                                       const std::string& hint) {
  const std::string w =
      ctx.AddInitializer(hint + "_weights", attention::ColumnSlice(weights, begin, end, scale));
  std::string projected = ctx.NewValueName(hint);
  ctx.AddNode("MatMul", {ctx.input(kInput), w}, {projected}, kAttentionOpset);
  const std::string& bias = ctx.input(kBias);
  if (bias.empty()) return projected;
  ASSIGN_OR_RETURN(const HostTensor* b, attention::FloatInitializer(ctx, bias, 1, "bias"));
  std::string b_part;
  if (b != nullptr) {
    if (b->shape[0] != weights.shape[1]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bias has ", b->shape[0], " elements, the weights ", weights.shape[1], " columns"));
    }
    b_part = ctx.AddInitializer(hint + "_bias", attention::RangeSlice(*b, begin, end, scale));
  } else {
    b_part = attention::SliceValue(ctx, bias, begin, end, scale, hint + "_bias");
  }
  std::string biased = ctx.NewValueName(hint + "_biased");
  ctx.AddNode("Add", {projected, b_part}, {biased}, kAttentionOpset);
  return biased;
}

class AttentionRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& node = ctx.node();
    RETURN_IF_ERROR(AttentionCheckSupported(ctx));
    ASSIGN_OR_RETURN(const int64_t heads, attention::NumHeads(node));
    ASSIGN_OR_RETURN(const HostTensor* weights,
                     attention::FloatInitializer(ctx, ctx.input(kWeights), 2, "weights"));
    if (weights == nullptr) {
      return absl::UnimplementedError("weights that are not an initializer are not supported");
    }
    ASSIGN_OR_RETURN(const Sizes s, HiddenSizes(node, *weights, heads));
    ASSIGN_OR_RETURN(const float scale_attr, attention::FloatAttr(node, "scale", 0.0f));
    const float scale =
        scale_attr == 0.0f ? 1.0f / std::sqrt(static_cast<float>(s.q / heads)) : scale_attr;
    CoreInputs core;
    ASSIGN_OR_RETURN(core.unidirectional, attention::BoolAttr(node, "unidirectional"));
    ASSIGN_OR_RETURN(core.mask_filter_value,
                     attention::FloatAttr(node, "mask_filter_value", -10000.0f));

    ASSIGN_OR_RETURN(const std::string q, Projection(ctx, *weights, 0, s.q, scale, "q"));
    ASSIGN_OR_RETURN(const std::string k, Projection(ctx, *weights, s.q, s.q + s.k, 1.0f, "k"));
    ASSIGN_OR_RETURN(const std::string v,
                     Projection(ctx, *weights, s.q + s.k, s.total(), 1.0f, "v"));
    core.past_from_shapes = true;
    core.mask = ctx.input(kMaskIndex);
    core.attention_bias = ctx.input(kAttentionBias);
    core.output = ctx.output(0);
    if (core.output.empty()) return absl::InvalidArgumentError("Attention needs output 0");
    const bool past = !ctx.input(kPast).empty() || attention::IsRead(ctx.graph(), ctx.output(1));
    if (!past && attention::AddFused(ctx, core, {q, k, v, heads})) return absl::OkStatus();
    core.q = attention::SplitHeads(ctx, q, heads, {0, 2, 1, 3}, "q");
    if (past) {
      ASSIGN_OR_RETURN(std::tie(core.k_transposed, core.v), WithPast(ctx, k, v, heads, s));
    } else {
      core.k_transposed = attention::SplitHeads(ctx, k, heads, {0, 2, 3, 1}, "k");
      core.v = attention::SplitHeads(ctx, v, heads, {0, 2, 1, 3}, "v");
    }
    attention::AddCore(ctx, core);
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("com.microsoft", "Attention", 1, 1, AttentionRewrite);

}  // namespace vkserve
