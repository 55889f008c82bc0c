// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// com.microsoft MultiHeadAttention (opset 1): self or cross attention over
// projections computed outside the op. query [B, S, D], key [B, L, D] and
// value [B, L, Dv], plus the optional bias [D + D + Dv] from the
// projections; split into num_heads heads, softmax(Q K' * scale + masks) V,
// merged back into [B, S, Dv].
//
// The bias parts are sliced at the offsets D and 2D, read from query's shape
// at plan time (the bias alone cannot tell D from Dv). The scale (attribute
// `scale`, or 1/sqrt(head_size) when absent or 0, computed from Q's heads at
// plan time) multiplies Q, which is smaller than the scores whenever L > H.
// key_padding_mask (int32: [B] key lengths, [B, L] or [B, S, L] 0/1) and
// unidirectional go to vkserve's AttentionMask op; attention_bias is added to
// the scores.
// Without key_padding_mask, the core is one ONNX Attention node instead
// (attention::AddFused), which runs the fused attention kernel.
//
// Not supported (UNIMPLEMENTED): packed QKV (query [B, L, N, 3, H], key and
// value omitted), packed KV, key / value already in heads (BNSH), past_key /
// past_value / present outputs (decoding with a KV cache),
// past_sequence_length, cache_indirection and the qk output.
#include "absl/strings/str_cat.h"
#include "runtime/lowering/contrib/attention_util.h"

namespace vkserve {
namespace {

using attention::CoreInputs;

constexpr int64_t kMultiHeadAttentionOpset = 17;

// Input indices, scoped: other contrib rewrites name their inputs alike.
struct MhaInput {
  enum : size_t {
    kQuery,
    kKey,
    kValue,
    kBias,
    kKeyPaddingMask,
    kAttentionBias,
    kPastKey,
    kPastValue,
    kPastSequenceLength,
    kCacheIndirection
  };
};

absl::Status MultiHeadAttentionCheckSupported(const RewriteContext& ctx) {
  if (ctx.input(MhaInput::kQuery).empty())
    return absl::InvalidArgumentError("MultiHeadAttention needs input 'query'");
  if (ctx.input(MhaInput::kKey).empty() || ctx.input(MhaInput::kValue).empty()) {
    return absl::UnimplementedError(
        "packed QKV or packed KV (key or value omitted) is not supported");
  }
  RETURN_IF_ERROR(attention::CheckDeclaredRank3(ctx, ctx.input(MhaInput::kQuery), "query"));
  RETURN_IF_ERROR(attention::CheckDeclaredRank3(ctx, ctx.input(MhaInput::kKey), "key"));
  RETURN_IF_ERROR(attention::CheckDeclaredRank3(ctx, ctx.input(MhaInput::kValue), "value"));
  RETURN_IF_ERROR(attention::RefuseInput(ctx, MhaInput::kPastKey, "past_key"));
  RETURN_IF_ERROR(attention::RefuseInput(ctx, MhaInput::kPastValue, "past_value"));
  RETURN_IF_ERROR(
      attention::RefuseInput(ctx, MhaInput::kPastSequenceLength, "past_sequence_length"));
  RETURN_IF_ERROR(attention::RefuseInput(ctx, MhaInput::kCacheIndirection, "cache_indirection"));
  RETURN_IF_ERROR(attention::RefuseOutput(ctx, 1, "present_key"));
  RETURN_IF_ERROR(attention::RefuseOutput(ctx, 2, "present_value"));
  RETURN_IF_ERROR(attention::RefuseOutput(ctx, 3, "qk"));
  if (ctx.output(0).empty()) return absl::InvalidArgumentError("MultiHeadAttention needs output 0");
  return absl::OkStatus();
}

// `x` plus the bias elements [begin * D, end * D) (end 0: to the end of the
// bias), D being query's last dim; `x` itself without a bias.
std::string AddBiasPart(RewriteContext& ctx, const std::string& x, const std::string& hidden,
                        int64_t begin, int64_t end, const std::string& hint) {
  const std::string& bias = ctx.input(MhaInput::kBias);
  if (bias.empty()) return x;
  auto times = [&](int64_t k, const std::string& what) {
    std::string out = ctx.NewValueName(what);
    ctx.AddNode("Mul", {hidden, attention::AddInts(ctx, what + "_k", {k})}, {out},
                kMultiHeadAttentionOpset);
    return out;
  };
  const std::string start = times(begin, hint + "_bias_start");
  const std::string stop = end == 0 ? attention::AddInts(ctx, hint + "_bias_end", {INT64_MAX})
                                    : times(end, hint + "_bias_end");
  std::string part = ctx.NewValueName(hint + "_bias");
  ctx.AddNode("Slice", {bias, start, stop, attention::AddInts(ctx, hint + "_bias_axes", {0})},
              {part}, kMultiHeadAttentionOpset);
  std::string out = ctx.NewValueName(hint + "_biased");
  ctx.AddNode("Add", {x, part}, {out}, kMultiHeadAttentionOpset);
  return out;
}

// q times the scale: the attribute, or 1/sqrt(head size) from q's shape.
absl::StatusOr<std::string> Scaled(RewriteContext& ctx, const std::string& q, int64_t heads) {
  ASSIGN_OR_RETURN(const float scale_attr, attention::FloatAttr(ctx.node(), "scale", 0.0f));
  std::string factor;
  if (scale_attr != 0.0f) {
    factor = attention::AddScalar(ctx, "scale", scale_attr);
  } else {
    // [D] / N -> float -> ^-0.5, all folded at plan time.
    const std::string hidden = attention::Shape(ctx, q, -1, INT64_MAX, "q_hidden");
    std::string head = ctx.NewValueName("head_size");
    ctx.AddNode("Div", {hidden, attention::AddInts(ctx, "num_heads", {heads})}, {head},
                kMultiHeadAttentionOpset);
    std::string head_f = ctx.NewValueName("head_size_f");
    Node& cast = ctx.AddNode("Cast", {head}, {head_f}, kMultiHeadAttentionOpset);
    Attribute to;
    to.type = Attribute::Type::kInt;
    to.i = static_cast<int64_t>(DataType::kFloat);
    cast.attributes["to"] = to;
    factor = ctx.NewValueName("scale");
    ctx.AddNode("Pow", {head_f, attention::AddScalar(ctx, "minus_half", -0.5f)}, {factor},
                kMultiHeadAttentionOpset);
  }
  std::string out = ctx.NewValueName("q_scaled");
  ctx.AddNode("Mul", {q, factor}, {out}, kMultiHeadAttentionOpset);
  return out;
}

class MultiHeadAttentionRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& node = ctx.node();
    RETURN_IF_ERROR(MultiHeadAttentionCheckSupported(ctx));
    ASSIGN_OR_RETURN(const int64_t heads, attention::NumHeads(node));
    CoreInputs core;
    ASSIGN_OR_RETURN(core.unidirectional, attention::BoolAttr(node, "unidirectional"));
    ASSIGN_OR_RETURN(core.mask_filter_value,
                     attention::FloatAttr(node, "mask_filter_value", -10000.0f));

    std::string hidden;  // [D], query's last dim
    if (!ctx.input(MhaInput::kBias).empty())
      hidden = attention::Shape(ctx, ctx.input(MhaInput::kQuery), -1, INT64_MAX, "hidden");
    const std::string q = AddBiasPart(ctx, ctx.input(MhaInput::kQuery), hidden, 0, 1, "q");
    const std::string k = AddBiasPart(ctx, ctx.input(MhaInput::kKey), hidden, 1, 2, "k");
    const std::string v = AddBiasPart(ctx, ctx.input(MhaInput::kValue), hidden, 2, 0, "v");
    ASSIGN_OR_RETURN(const std::string q_scaled, Scaled(ctx, q, heads));
    core.mask = ctx.input(MhaInput::kKeyPaddingMask);
    core.attention_bias = ctx.input(MhaInput::kAttentionBias);
    core.output = ctx.output(0);
    if (attention::AddFused(ctx, core, {q_scaled, k, v, heads})) return absl::OkStatus();
    core.q = attention::SplitHeads(ctx, q_scaled, heads, {0, 2, 1, 3}, "q");
    core.k_transposed = attention::SplitHeads(ctx, k, heads, {0, 2, 3, 1}, "k");
    core.v = attention::SplitHeads(ctx, v, heads, {0, 2, 1, 3}, "v");
    attention::AddCore(ctx, core);
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("com.microsoft", "MultiHeadAttention", 1, 1, MultiHeadAttentionRewrite);

}  // namespace vkserve
