// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/lowering/contrib/attention_util.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace vkserve {
namespace attention {
namespace {

// Far more heads than any model has; keeps N * H and friends in range.
constexpr int64_t kMaxHeads = int64_t{1} << 16;

// Opsets the added nodes follow (their semantics, not the model's imports).
constexpr int64_t kAttentionUtilOpset = 17;

absl::Status WrongType(const std::string& name, const char* type) {
  return absl::InvalidArgumentError(absl::StrCat("attribute '", name, "' must be ", type));
}

}  // namespace

absl::StatusOr<int64_t> IntAttr(const Node& node, const std::string& name, int64_t default_value) {
  const Attribute* a = node.FindAttribute(name);
  if (a == nullptr) return default_value;
  if (a->type != Attribute::Type::kInt) return WrongType(name, "an int");
  return a->i;
}

absl::StatusOr<float> FloatAttr(const Node& node, const std::string& name, float default_value) {
  const Attribute* a = node.FindAttribute(name);
  if (a == nullptr) return default_value;
  if (a->type != Attribute::Type::kFloat) return WrongType(name, "a float");
  return a->f;
}

absl::StatusOr<std::vector<int64_t>> IntsAttr(const Node& node, const std::string& name) {
  const Attribute* a = node.FindAttribute(name);
  if (a == nullptr) return std::vector<int64_t>{};
  if (a->type != Attribute::Type::kInts) return WrongType(name, "a list of ints");
  return a->ints;
}

absl::StatusOr<int64_t> NumHeads(const Node& node) {
  if (node.FindAttribute("num_heads") == nullptr) {
    return absl::InvalidArgumentError("attribute 'num_heads' is required");
  }
  ASSIGN_OR_RETURN(const int64_t n, IntAttr(node, "num_heads", 0));
  if (n <= 0 || n > kMaxHeads) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_heads must be in [1, ", kMaxHeads, "], got ", n));
  }
  return n;
}

absl::StatusOr<bool> BoolAttr(const Node& node, const std::string& name) {
  ASSIGN_OR_RETURN(const int64_t v, IntAttr(node, name, 0));
  if (v != 0 && v != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute '", name, "' must be 0 or 1, got ", v));
  }
  return v == 1;
}

bool IsRead(const Graph& graph, const std::string& name) {
  if (name.empty()) return false;
  for (const ValueInfo& o : graph.outputs) {
    if (o.name == name) return true;
  }
  for (const Node& n : graph.nodes) {
    for (const std::string& in : n.inputs) {
      if (in == name) return true;
    }
  }
  return false;
}

absl::Status RefuseInput(const RewriteContext& ctx, size_t index, const std::string& what) {
  if (ctx.input(index).empty()) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("input ", index, " (", what, ") is not supported"));
}

absl::Status RefuseOutput(const RewriteContext& ctx, size_t index, const std::string& what) {
  if (!IsRead(ctx.graph(), ctx.output(index))) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("output ", index, " (", what, ") is not supported"));
}

absl::Status CheckDeclaredRank3(const RewriteContext& ctx, const std::string& name,
                                const std::string& what) {
  const TensorType* type = ctx.declared_type(name);
  if (type == nullptr || !type->has_shape || type->shape.size() == 3) return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat(what, " must be [batch, sequence, hidden]; a rank-", type->shape.size(), " ",
                   what, " (packed or heads-first layouts) is not supported"));
}

absl::StatusOr<const HostTensor*> FloatInitializer(const RewriteContext& ctx,
                                                   const std::string& name, size_t rank,
                                                   const std::string& what) {
  const HostTensor* t = ctx.initializer(name);
  if (t == nullptr) return nullptr;
  if (t->dtype != DataType::kFloat) {
    return absl::UnimplementedError(
        absl::StrCat(what, " must be float, got ", std::string(DataTypeName(t->dtype))));
  }
  if (t->shape.size() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must have ", rank, " dims, got ", t->shape.size()));
  }
  for (int64_t d : t->shape) {
    if (d <= 0) return absl::InvalidArgumentError(absl::StrCat(what, " has an empty dim"));
  }
  // Loaders check this; a rewrite reads the bytes, so it checks again.
  if (static_cast<uint64_t>(t->num_elements()) * 4 != t->data.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " holds ", t->data.size(), " bytes for ", t->num_elements(), " floats"));
  }
  return t;
}

HostTensor ColumnSlice(const HostTensor& t, int64_t begin, int64_t end, float scale) {
  const int64_t rows = t.shape[0], cols = t.shape[1], width = end - begin;
  std::vector<float> out(static_cast<size_t>(rows * width));
  const auto* src = reinterpret_cast<const uint8_t*>(t.data.data());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < width; ++c) {
      float v;
      std::memcpy(&v, src + 4 * (r * cols + begin + c), 4);
      out[static_cast<size_t>(r * width + c)] = v * scale;
    }
  }
  return HostTensor::FromFloats(out, {rows, width});
}

HostTensor RangeSlice(const HostTensor& t, int64_t begin, int64_t end, float scale) {
  std::vector<float> out(static_cast<size_t>(end - begin));
  for (int64_t i = begin; i < end; ++i) {
    float v;
    std::memcpy(&v, t.data.data() + 4 * i, 4);
    out[static_cast<size_t>(i - begin)] = v * scale;
  }
  return HostTensor::FromFloats(out, {end - begin});
}

std::string AddInts(RewriteContext& ctx, const std::string& hint,
                    const std::vector<int64_t>& values) {
  return ctx.AddInitializer(hint,
                            HostTensor::FromInts(values, {static_cast<int64_t>(values.size())}));
}

std::string AddScalar(RewriteContext& ctx, const std::string& hint, float value) {
  return ctx.AddInitializer(hint, HostTensor::FromFloats({value}, {}));
}

std::string SliceValue(RewriteContext& ctx, const std::string& name, int64_t begin, int64_t end,
                       float scale, const std::string& hint) {
  std::string out = ctx.NewValueName(hint);
  ctx.AddNode("Slice",
              {name, AddInts(ctx, hint + "_start", {begin}), AddInts(ctx, hint + "_end", {end}),
               AddInts(ctx, hint + "_axes", {0})},
              {out}, kAttentionUtilOpset);
  if (scale == 1.0f) return out;
  std::string scaled = ctx.NewValueName(hint + "_scaled");
  ctx.AddNode("Mul", {out, AddScalar(ctx, hint + "_scale", scale)}, {scaled}, kAttentionUtilOpset);
  return scaled;
}

std::string Shape(RewriteContext& ctx, const std::string& x, int64_t start, int64_t end,
                  const std::string& hint) {
  std::string out = ctx.NewValueName(hint);
  Node& node = ctx.AddNode("Shape", {x}, {out}, kAttentionUtilOpset);
  Attribute s;
  s.type = Attribute::Type::kInt;
  s.i = start;
  node.attributes["start"] = s;
  Attribute e = s;
  e.i = end;
  node.attributes["end"] = e;
  return out;
}

std::string SplitHeads(RewriteContext& ctx, const std::string& x, int64_t num_heads,
                       const std::vector<int64_t>& perm, const std::string& hint) {
  // The target shape [B, L, N, -1] is built from x's shape reshaped to [3],
  // which fails at planning unless x has 3 dims: a 4-D x (a BNSH key, say)
  // would otherwise reshape without error into the wrong heads. All of it
  // is shape arithmetic, folded at plan time.
  const std::string dims = Shape(ctx, x, 0, INT64_MAX, hint + "_dims");
  std::string rank3 = ctx.NewValueName(hint + "_dims_rank3");
  ctx.AddNode("Reshape", {dims, AddInts(ctx, hint + "_rank", {3})}, {rank3}, kAttentionUtilOpset);
  std::string batch_seq = ctx.NewValueName(hint + "_batch_seq");
  ctx.AddNode("Slice",
              {rank3, AddInts(ctx, hint + "_bs_start", {0}), AddInts(ctx, hint + "_bs_end", {2})},
              {batch_seq}, kAttentionUtilOpset);
  const std::string target = Concat(ctx, {batch_seq, AddInts(ctx, hint + "_nh", {num_heads, -1})},
                                    0, hint + "_heads_shape");
  std::string heads = ctx.NewValueName(hint + "_heads");
  ctx.AddNode("Reshape", {x, target}, {heads}, kAttentionUtilOpset);
  return Transpose(ctx, heads, perm, hint);
}

std::string Transpose(RewriteContext& ctx, const std::string& x, const std::vector<int64_t>& perm,
                      const std::string& hint) {
  std::string out = ctx.NewValueName(hint + "_t");
  Node& t = ctx.AddNode("Transpose", {x}, {out}, kAttentionUtilOpset);
  Attribute p;
  p.type = Attribute::Type::kInts;
  p.ints = perm;
  t.attributes["perm"] = p;
  return out;
}

std::string Concat(RewriteContext& ctx, const std::vector<std::string>& parts, int64_t axis,
                   const std::string& hint, std::string out) {
  if (out.empty()) out = ctx.NewValueName(hint);
  Node& c = ctx.AddNode("Concat", parts, {out}, kAttentionUtilOpset);
  Attribute a;
  a.type = Attribute::Type::kInt;
  a.i = axis;
  c.attributes["axis"] = a;
  return out;
}

void AddCore(RewriteContext& ctx, const CoreInputs& in) {
  std::string scores = ctx.NewValueName("scores");
  ctx.AddNode("MatMul", {in.q, in.k_transposed}, {scores}, kAttentionUtilOpset);
  if (!in.attention_bias.empty()) {
    std::string biased = ctx.NewValueName("scores_biased");
    ctx.AddNode("Add", {scores, in.attention_bias}, {biased}, kAttentionUtilOpset);
    scores = biased;
  }
  if (!in.mask.empty() || in.unidirectional) {
    std::string masked = ctx.NewValueName("scores_masked");
    std::vector<std::string> inputs = {scores};
    if (!in.mask.empty()) inputs.push_back(in.mask);
    Node& m = ctx.AddNode("AttentionMask", inputs, {masked}, 1, "vkserve");
    Attribute causal;
    causal.type = Attribute::Type::kInt;
    causal.i = in.unidirectional ? 1 : 0;
    m.attributes["unidirectional"] = causal;
    Attribute filter;
    filter.type = Attribute::Type::kFloat;
    filter.f = in.mask_filter_value;
    m.attributes["mask_filter_value"] = filter;
    Attribute past = causal;
    past.i = in.past_from_shapes ? 1 : 0;
    m.attributes["past_from_shapes"] = past;
    scores = masked;
  }
  std::string probs = ctx.NewValueName("probs");
  Node& softmax = ctx.AddNode("Softmax", {scores}, {probs}, kAttentionUtilOpset);
  Attribute axis;
  axis.type = Attribute::Type::kInt;
  axis.i = -1;
  softmax.attributes["axis"] = axis;
  std::string context = ctx.NewValueName("context");
  ctx.AddNode("MatMul", {probs, in.v}, {context}, kAttentionUtilOpset);
  const std::string merged = Transpose(ctx, context, {0, 2, 1, 3}, "context");
  ctx.AddNode("Reshape", {merged, AddInts(ctx, "output_shape", {0, 0, -1})}, {in.output},
              kAttentionUtilOpset);
}

namespace {

// `x` unchanged when it has 3 dims; otherwise planning fails on the Reshape
// of its shape to [3].
std::string Rank3(RewriteContext& ctx, const std::string& x, const std::string& hint) {
  const std::string dims = Shape(ctx, x, 0, INT64_MAX, hint + "_dims");
  std::string rank3 = ctx.NewValueName(hint + "_dims_rank3");
  ctx.AddNode("Reshape", {dims, AddInts(ctx, hint + "_rank", {3})}, {rank3}, kAttentionUtilOpset);
  std::string out = ctx.NewValueName(hint + "_rank3");
  ctx.AddNode("Reshape", {x, rank3}, {out}, kAttentionUtilOpset);
  return out;
}

}  // namespace

bool AddFused(RewriteContext& ctx, const CoreInputs& in, const FusedInputs& fused) {
  if (fused.q.empty() || fused.k.empty() || fused.v.empty() || fused.num_heads <= 0 ||
      !in.mask.empty()) {
    return false;
  }
  std::vector<std::string> inputs = {Rank3(ctx, fused.q, "q"), Rank3(ctx, fused.k, "k"),
                                     Rank3(ctx, fused.v, "v")};
  if (!in.attention_bias.empty()) inputs.push_back(in.attention_bias);
  Node& node = ctx.AddNode("Attention", inputs, {in.output}, 23);
  auto int_attr = [&](const char* name, int64_t value) {
    Attribute a;
    a.type = Attribute::Type::kInt;
    a.i = value;
    node.attributes[name] = a;
  };
  int_attr("q_num_heads", fused.num_heads);
  int_attr("kv_num_heads", fused.num_heads);
  // Without past, keys and queries start together: causal is upper-left,
  // as AttentionMask's unidirectional.
  int_attr("is_causal", in.unidirectional ? 1 : 0);
  Attribute scale;
  scale.type = Attribute::Type::kFloat;
  scale.f = 1.0f;  // Q is already scaled
  node.attributes["scale"] = scale;
  return true;
}

}  // namespace attention
}  // namespace vkserve
