// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// com.microsoft EmbedLayerNormalization (opset 1), which ONNX Runtime's
// EmbedLayerNormFusion writes for BERT's embedding layer:
//
//   sum    = word_embedding[input_ids] + position_embedding[position]
//            (+ segment_embedding[segment_ids])
//   output = LayerNormalization(sum, gamma, beta, axis -1, epsilon)
//
// with position = position_ids ([B, S] or [1, S]) when given, else 0..S-1.
// It becomes Gathers, Adds (in ORT's order: word + position, then segment)
// and an opset-17 LayerNormalization. The optional outputs:
//   - mask_index (int32 [B]): per batch row, the count of mask entries equal
//     to 1 (ORT's definition; 0 everywhere without a mask). Equal -> Cast ->
//     a MatMul with a column of ones, exact in fp32 for any realistic S.
//   - embedding_sum: `sum` above.
// Indices out of range, which ORT rejects, are clamped by Gather on the GPU
// (nothing is read back mid-run).
#include "absl/strings/str_cat.h"
#include "runtime/lowering/contrib/attention_util.h"

namespace vkserve {
namespace {

constexpr int64_t kEmbedLayerNormalizationOpset = 17;
constexpr float kEmbedLayerNormalizationDefaultEpsilon =
    1e-12f;  // ORT's kDefaultEmbedLayerNormEpsilon

enum EmbedLayerNormalizationInput : size_t {
  kInputIds,
  kSegmentIds,
  kWordEmbedding,
  kPositionEmbedding,
  kSegmentEmbedding,
  kGamma,
  kBeta,
  kMask,
  kPositionIds
};

absl::Status CheckInputs(const RewriteContext& ctx) {
  for (size_t i : {kInputIds, kWordEmbedding, kPositionEmbedding, kGamma, kBeta}) {
    if (ctx.input(i).empty()) {
      return absl::InvalidArgumentError(absl::StrCat("EmbedLayerNormalization needs input ", i));
    }
  }
  if (ctx.input(kSegmentIds).empty() != ctx.input(kSegmentEmbedding).empty()) {
    return absl::InvalidArgumentError("segment_ids and segment_embedding must be given together");
  }
  if (ctx.output(0).empty())
    return absl::InvalidArgumentError("EmbedLayerNormalization needs output 0");
  return absl::OkStatus();
}

Attribute IntAttribute(int64_t v) {
  Attribute a;
  a.type = Attribute::Type::kInt;
  a.i = v;
  return a;
}

std::string Gather(RewriteContext& ctx, const std::string& table, const std::string& ids,
                   const std::string& hint) {
  std::string out = ctx.NewValueName(hint);
  ctx.AddNode("Gather", {table, ids}, {out}, kEmbedLayerNormalizationOpset).attributes["axis"] =
      IntAttribute(0);
  return out;
}

// position_embedding rows for each token: by position_ids, or rows 0..S-1.
std::string Positions(RewriteContext& ctx) {
  const std::string& table = ctx.input(kPositionEmbedding);
  if (!ctx.input(kPositionIds).empty())
    return Gather(ctx, table, ctx.input(kPositionIds), "position");
  const std::string seq = attention::Shape(ctx, ctx.input(kInputIds), 1, 2, "sequence_length");
  std::string out = ctx.NewValueName("position");
  ctx.AddNode("Slice",
              {table, attention::AddInts(ctx, "position_start", {0}), seq,
               attention::AddInts(ctx, "position_axes", {0})},
              {out}, kEmbedLayerNormalizationOpset);
  return out;
}

std::string Add(RewriteContext& ctx, const std::string& a, const std::string& b, std::string out) {
  if (out.empty()) out = ctx.NewValueName("sum");
  ctx.AddNode("Add", {a, b}, {out}, kEmbedLayerNormalizationOpset);
  return out;
}

// Output 1: int32 [B], per row the count of mask entries equal to 1.
void MaskIndex(RewriteContext& ctx, const std::string& out) {
  const std::string& mask = ctx.input(kMask);
  if (mask.empty()) {
    const std::string batch = attention::Shape(ctx, ctx.input(kInputIds), 0, 1, "batch");
    HostTensor zero;
    zero.dtype = DataType::kInt32;
    zero.shape = {1};
    zero.data.assign(4, 0);
    Attribute value;
    value.type = Attribute::Type::kTensor;
    value.t = std::move(zero);
    ctx.AddNode("ConstantOfShape", {batch}, {out}, kEmbedLayerNormalizationOpset)
        .attributes["value"] = std::move(value);
    return;
  }
  HostTensor one;
  one.dtype = DataType::kInt32;
  one.shape = {};
  one.data = {1, 0, 0, 0};
  std::string is_one = ctx.NewValueName("mask_is_one");
  ctx.AddNode("Equal", {mask, ctx.AddInitializer("one", std::move(one))}, {is_one},
              kEmbedLayerNormalizationOpset);
  std::string ones_f = ctx.NewValueName("mask_ones");
  ctx.AddNode("Cast", {is_one}, {ones_f}, kEmbedLayerNormalizationOpset).attributes["to"] =
      IntAttribute(static_cast<int64_t>(DataType::kFloat));
  // A [S, 1] column of ones, S from the mask's shape.
  const std::string seq = attention::Shape(ctx, mask, 1, 2, "mask_length");
  std::string column_shape = ctx.NewValueName("column_shape");
  ctx.AddNode("Concat", {seq, attention::AddInts(ctx, "one_column", {1})}, {column_shape},
              kEmbedLayerNormalizationOpset)
      .attributes["axis"] = IntAttribute(0);
  std::string column = ctx.NewValueName("ones_column");
  Attribute value;
  value.type = Attribute::Type::kTensor;
  value.t = HostTensor::FromFloats({1.0f}, {1});
  ctx.AddNode("ConstantOfShape", {column_shape}, {column}, kEmbedLayerNormalizationOpset)
      .attributes["value"] = std::move(value);
  std::string counts = ctx.NewValueName("mask_counts");
  ctx.AddNode("MatMul", {ones_f, column}, {counts}, kEmbedLayerNormalizationOpset);
  std::string flat = ctx.NewValueName("mask_counts_flat");
  ctx.AddNode("Reshape", {counts, attention::AddInts(ctx, "flat", {-1})}, {flat},
              kEmbedLayerNormalizationOpset);
  ctx.AddNode("Cast", {flat}, {out}, kEmbedLayerNormalizationOpset).attributes["to"] =
      IntAttribute(static_cast<int64_t>(DataType::kInt32));
}

class EmbedLayerNormalizationRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override {
    const Node& node = ctx.node();
    RETURN_IF_ERROR(CheckInputs(ctx));
    ASSIGN_OR_RETURN(const float epsilon,
                     attention::FloatAttr(node, "epsilon", kEmbedLayerNormalizationDefaultEpsilon));
    if (!(epsilon >= 0.0f)) return absl::InvalidArgumentError("epsilon must not be negative");
    ASSIGN_OR_RETURN(const int64_t mask_index_type, attention::IntAttr(node, "mask_index_type", 1));
    if (mask_index_type != 0 && mask_index_type != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("mask_index_type must be 0 or 1, got ", mask_index_type));
    }

    const std::string words = Gather(ctx, ctx.input(kWordEmbedding), ctx.input(kInputIds), "words");
    const bool has_segment = !ctx.input(kSegmentIds).empty();
    const std::string& sum_out = ctx.output(2);
    std::string sum = Add(ctx, words, Positions(ctx), has_segment ? "" : sum_out);
    if (has_segment) {
      const std::string segments =
          Gather(ctx, ctx.input(kSegmentEmbedding), ctx.input(kSegmentIds), "segments");
      sum = Add(ctx, sum, segments, sum_out);
    }
    Node& ln = ctx.AddNode("LayerNormalization", {sum, ctx.input(kGamma), ctx.input(kBeta)},
                           {ctx.output(0)}, kEmbedLayerNormalizationOpset);
    ln.attributes["axis"] = IntAttribute(-1);
    Attribute eps;
    eps.type = Attribute::Type::kFloat;
    eps.f = epsilon;
    ln.attributes["epsilon"] = eps;
    if (!ctx.output(1).empty()) MaskIndex(ctx, ctx.output(1));
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_REWRITE("com.microsoft", "EmbedLayerNormalization", 1, 1,
                         EmbedLayerNormalizationRewrite);

}  // namespace vkserve
