// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// AttentionMask (domain "vkserve", opset 1): vkserve's own op, written by the
// rewrites of ONNX Runtime's Attention and MultiHeadAttention
// (runtime/lowering/contrib/attention_util.h), never by exporters. It applies their
// masks to the scaled scores [B, N, S, T] (input 0) in one elementwise pass
// (runtime/ops/attention_mask.comp):
//   - input 1, optional int32 mask_index / key_padding_mask, in any form ORT's
//     CPU kernels take: [B] end positions, [2B] end and start positions,
//     [B, T] or [B, S, T] 0/1 masks, and the [B, 1] / [1, 1] "dummy" that
//     masks nothing. Hidden scores get mask_filter_value added.
//   - unidirectional: key t is hidden from query s when t > s + P; the score
//     becomes the lowest float. P, the past state's length, is the attribute
//     past_sequence_length, or with past_from_shapes=1 the scores' T - S
//     (Attention, whose keys are the past's followed by the queries' own).
// The form is told by the mask's shape at each signature, which is why this
// is an op and not a rewrite into Less/Where/Add: a rewrite runs before
// shapes, and [B] and [B, T] masks mean different things.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kAttentionMaskLocalSize = 256;

// Matches FORM in attention_mask.comp.
enum class MaskForm : uint32_t { kNone = 0, kEnd = 1, kEndStart = 2, kRaw2D = 3, kRaw3D = 4 };

struct ScoreDims {
  int64_t batch = 0, heads = 0, seq = 0, total = 0;
};

absl::StatusOr<ScoreDims> ScoreDimsOf(const TensorDesc& scores) {
  RETURN_IF_ERROR(CheckDataType(scores.dtype, {DataType::kFloat}, "scores"));
  if (scores.shape.size() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("scores must be [batch, heads, sequence, total_sequence], got ",
                     ShapeString(scores.shape)));
  }
  return ScoreDims{scores.shape[0], scores.shape[1], scores.shape[2], scores.shape[3]};
}

// The mask's form from its shape, checked against the scores' dims as ORT's
// AttentionBase::CheckMask does.
absl::StatusOr<MaskForm> FormOf(const TensorDesc* mask, const ScoreDims& d) {
  if (mask == nullptr) return MaskForm::kNone;
  RETURN_IF_ERROR(CheckDataType(mask->dtype, {DataType::kInt32}, "mask"));
  const std::vector<int64_t>& m = mask->shape;
  const std::string shape = ShapeString(m);
  switch (m.size()) {
    case 1:
      if (m[0] == d.batch) return MaskForm::kEnd;
      if (m[0] == 2 * d.batch) return MaskForm::kEndStart;
      if (m[0] == 3 * d.batch + 2) {
        return absl::UnimplementedError(
            absl::StrCat("a 1-D mask of 3 * batch + 2 elements (", shape,
                         ", cumulative sequence lengths) is not supported"));
      }
      return absl::InvalidArgumentError(absl::StrCat("a 1-D mask must have batch (", d.batch,
                                                     ") or 2 * batch elements, got ", shape));
    case 2:
      if (m[0] == d.batch && m[1] == d.total) return MaskForm::kRaw2D;
      if ((m[0] == d.batch || m[0] == 1) && m[1] == 1) return MaskForm::kNone;  // masks nothing
      return absl::InvalidArgumentError(
          absl::StrCat("a 2-D mask must be [batch, total_sequence] = [", d.batch, ",", d.total,
                       "], got ", shape));
    case 3:
      if (m[0] == d.batch && m[1] == d.seq && m[2] == d.total) return MaskForm::kRaw3D;
      return absl::InvalidArgumentError(
          absl::StrCat("a 3-D mask must be [batch, sequence, total_sequence] = [", d.batch, ",",
                       d.seq, ",", d.total, "], got ", shape));
    case 4:
      return absl::UnimplementedError(
          absl::StrCat("a 4-D mask (", shape,
                       ", Megatron's [batch, 1, max_sequence, max_sequence]) is not supported"));
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("the mask must have 1 to 4 dims, got ", shape));
  }
}

// The causal mask's offset P (see the file comment).
absl::StatusOr<int64_t> PastLength(const Node& node, const ScoreDims& d) {
  if (node.GetInt("past_from_shapes", 0) == 0) return node.GetInt("past_sequence_length", 0);
  if (d.total < d.seq) {
    return absl::InvalidArgumentError(absl::StrCat("scores have fewer keys (", d.total,
                                                   ") than queries (", d.seq,
                                                   ") but the keys should include the queries'"));
  }
  return d.total - d.seq;
}

class AttentionMaskOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    if (node.inputs.empty() || node.inputs[0].empty()) {
      return absl::InvalidArgumentError("AttentionMask needs input 0, the scores");
    }
    RETURN_IF_ERROR(CheckAttributeType(node, "unidirectional", Attribute::Type::kInt));
    RETURN_IF_ERROR(CheckAttributeType(node, "past_sequence_length", Attribute::Type::kInt));
    RETURN_IF_ERROR(CheckAttributeType(node, "past_from_shapes", Attribute::Type::kInt));
    if (node.GetInt("past_sequence_length", 0) < 0) {
      return absl::InvalidArgumentError("past_sequence_length must not be negative");
    }
    return CheckAttributeType(node, "mask_filter_value", Attribute::Type::kFloat);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* scores, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const ScoreDims d, ScoreDimsOf(*scores));
    RETURN_IF_ERROR(FormOf(ctx.input(1), d).status());
    RETURN_IF_ERROR(PastLength(ctx.node, d).status());
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = scores->shape;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& scores = *ctx.input(0);
    ASSIGN_OR_RETURN(const ScoreDims d, ScoreDimsOf(scores));
    const TensorDesc* mask = ctx.num_inputs() > 1 ? ctx.input(1) : nullptr;
    ASSIGN_OR_RETURN(const MaskForm form, FormOf(mask, d));
    const uint64_t count = static_cast<uint64_t>(scores.num_elements());
    if (count >= (uint64_t{1} << 32) ||
        (mask != nullptr && mask->num_elements() >= (int64_t{1} << 31))) {
      return absl::UnimplementedError(
          absl::StrCat("scores of 2^32 or more elements (", count, ")"));
    }
    if (count == 0) return MakeEmptyKernel();
    const Node& node = ctx.node();
    ASSIGN_OR_RETURN(const int64_t past, PastLength(node, d));
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(count))
        .U32(static_cast<uint32_t>(d.heads))
        .U32(static_cast<uint32_t>(d.seq))
        .U32(static_cast<uint32_t>(d.total))
        .U32(static_cast<uint32_t>(d.batch))
        .U32(static_cast<uint32_t>(form))
        .U32(node.GetInt("unidirectional", 0) != 0 ? 1u : 0u)
        .U32(static_cast<uint32_t>(std::min<int64_t>(past, UINT32_MAX)))
        .F32(node.GetFloat("mask_filter_value", -10000.0f));
    ASSIGN_OR_RETURN(step.pipeline, ctx.GetPipeline("ops/attention_mask", 3, step.push.size(),
                                                    {kAttentionMaskLocalSize, 1, 1}));
    // Without a mask the shader never reads binding 1; the scores stand in.
    const uint32_t mask_input = form == MaskForm::kNone ? 0 : 1;
    step.bindings = {BufferRef::Input(0), BufferRef::Input(mask_input), BufferRef::Output(0)};
    step.groups = GroupsFor(count, kAttentionMaskLocalSize, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("vkserve", "AttentionMask", 1, 1, AttentionMaskOp);

}  // namespace vkserve
