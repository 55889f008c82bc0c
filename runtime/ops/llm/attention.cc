// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Attention (opsets 23-27), the exact ONNX operator in fp32: 3-D
// ([B, S, H * E], with q_num_heads / kv_num_heads) or 4-D ([B, H, S, E])
// Q/K/V, grouped-query heads, scale, softcap, an additive float or a bool
// attn_mask (broadcast, shorter than the keys: padded as masked), is_causal
// (bottom-right aligned after past keys), past_key/past_value with
// present_key/present_value, nonpad_kv_seqlen, and the qk_matmul_output of
// every mode. Steps (runtime/kernels/composite_kernel.h): the keys and values,
// past then new, are copied into present_key/present_value (when asked for or
// past is given), then, where the fused kernel fits (equal Q/V head sizes up
// to 128, no softcap, no qk_matmul_output, no nonpad_kv_seqlen), either it
// (runtime/kernels/attention/flash_attention.h) or the unfused GEMM lowering
// (runtime/kernels/attention/attention_lowering.h) attends, as runtime/ops/
// attention_choice.h picks at the planned shape or kAttentionKernelAttr
// pins. Without past or present outputs they read K and V where they are.
// The rest goes to shaders/attention/attention.comp, exact and simple (one
// invocation per query row, the scores in scratch). Packed Q/K/V
// (kAttentionPackedQkvAttr: one [B, S, Q|K|V] input, written by
// runtime/passes/qkv_packing.h) takes those two only, each operand read in place
// through its offset. kAttentionSequenceFirstAttr makes the 3-D operands
// (packed or not) and the output [S, B, H * E]: every kernel reads and
// writes through the views' strides. Float16 Q/K/V run on the tensor-core kernel's fp16
// variants where it serves the node (NarrowAttentionOp), else converted.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/attention/attention_choice.h"
#include "runtime/kernels/attention/attention_lowering.h"
#include "runtime/kernels/attention/flash_attention.h"
#include "runtime/kernels/attention/flash_attention_cm.h"
#include "runtime/kernels/composite_kernel.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/kernels/via_float32.h"
#include "runtime/op/activation.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kAttentionLocal = 64;
enum AttentionInput {
  kQ = 0,
  kK = 1,
  kV = 2,
  kMask = 3,
  kPastKey = 4,
  kPastValue = 5,
  kNonpad = 6
};

// Q, K, V and the output as 4-D [B, H, S, E] views: sizes and element strides.
struct View {
  int64_t b = 0, h = 0, s = 0, e = 0;
  int64_t sb = 0, sh = 0, ss = 0;  // e is contiguous
  int64_t off = 0;                 // element offset (packed Q/K/V)
};

bool IsSequenceFirst(const Node& node) { return node.GetInt(kAttentionSequenceFirstAttr, 0) != 0; }

// `shape` [B, S, H * E] (or [S, B, H * E] sequence-first) as [B, H, S, E].
absl::StatusOr<View> AttentionViewOf(const std::vector<int64_t>& shape, int64_t heads,
                                     const char* what, bool sequence_first) {
  View v;
  if (shape.size() == 4) {
    v = {
        shape[0], shape[1], shape[2], shape[3], shape[1] * shape[2] * shape[3], shape[2] * shape[3],
        shape[3]};
    return v;
  }
  if (shape.size() != 3 || heads <= 0 || shape[2] % heads != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " ", ShapeString(shape), " must be 4-D, or 3-D with a hidden size the head count (",
        heads, ") divides"));
  }
  const int64_t e = shape[2] / heads;
  if (sequence_first) {
    v = {shape[1], heads, shape[0], e, shape[2], e, shape[1] * shape[2]};
  } else {
    v = {shape[0], heads, shape[1], e, shape[1] * shape[2], e, shape[2]};
  }
  return v;
}

struct AttentionPlan {
  View q, k, v, y;
  int64_t past = 0, total = 0;
  std::vector<int64_t> y_shape, present_k_shape, present_v_shape;
};

// Q, K and V side by side in the rows of one [B, S, q + k + v] input.
absl::Status PackedViews(const Node& node, const TensorDesc& packed, View* q, View* k, View* v) {
  const std::vector<int64_t> widths = node.GetInts(kAttentionPackedQkvAttr);
  const int64_t q_heads = node.GetInt("q_num_heads", 0), kv_heads = node.GetInt("kv_num_heads", 0);
  if (widths.size() != 3 || packed.shape.size() != 3 || q_heads <= 0 || kv_heads <= 0 ||
      widths[0] + widths[1] + widths[2] != packed.shape[2] || widths[0] % q_heads != 0 ||
      widths[1] % kv_heads != 0 || widths[2] % kv_heads != 0) {
    return absl::InvalidArgumentError(absl::StrCat("packed Q/K/V ", ShapeString(packed.shape),
                                                   " does not hold the widths ",
                                                   ShapeString(widths)));
  }
  const bool seq_first = IsSequenceFirst(node);
  const int64_t b = packed.shape[seq_first ? 1 : 0], s = packed.shape[seq_first ? 0 : 1];
  const int64_t row = packed.shape[2];
  // Batch and row strides: rows of one sequence adjacent, or of one position.
  const int64_t sb = seq_first ? row : s * row, ss = seq_first ? b * row : row;
  const int64_t eq = widths[0] / q_heads, ek = widths[1] / kv_heads, ev = widths[2] / kv_heads;
  *q = {b, q_heads, s, eq, sb, eq, ss, 0};
  *k = {b, kv_heads, s, ek, sb, ek, ss, widths[0]};
  *v = {b, kv_heads, s, ev, sb, ev, ss, widths[0] + widths[1]};
  return absl::OkStatus();
}

bool IsPacked(const Node& node) { return node.FindAttribute(kAttentionPackedQkvAttr) != nullptr; }

absl::StatusOr<AttentionPlan> AttentionPlanOf(const Node& node,
                                              const std::vector<const TensorDesc*>& in) {
  const int64_t q_heads = node.GetInt("q_num_heads", 0), kv_heads = node.GetInt("kv_num_heads", 0);
  AttentionPlan p;
  if (IsPacked(node)) {
    RETURN_IF_ERROR(PackedViews(node, *in[kQ], &p.q, &p.k, &p.v));
  } else {
    const bool seq_first = IsSequenceFirst(node);
    ASSIGN_OR_RETURN(p.q, AttentionViewOf(in[kQ]->shape, q_heads, "Q", seq_first));
    ASSIGN_OR_RETURN(p.k, AttentionViewOf(in[kK]->shape, kv_heads, "K", seq_first));
    ASSIGN_OR_RETURN(p.v, AttentionViewOf(in[kV]->shape, kv_heads, "V", seq_first));
    if (in[kQ]->shape.size() != in[kK]->shape.size() ||
        in[kQ]->shape.size() != in[kV]->shape.size()) {
      return absl::InvalidArgumentError("Q, K and V must have the same rank");
    }
  }
  if (p.k.b != p.q.b || p.v.b != p.q.b || p.k.h != p.v.h || p.k.s != p.v.s || p.k.e != p.q.e ||
      p.k.h == 0 || p.q.h % p.k.h != 0) {
    return absl::InvalidArgumentError(
        "Q, K and V do not agree in batch, heads, lengths or head size");
  }
  const TensorDesc* pk = in.size() > kPastKey ? in[kPastKey] : nullptr;
  const TensorDesc* pv = in.size() > kPastValue ? in[kPastValue] : nullptr;
  if ((pk == nullptr) != (pv == nullptr)) {
    return absl::InvalidArgumentError("past_key and past_value come together");
  }
  if (pk != nullptr) {
    if (pk->shape !=
            std::vector<int64_t>{p.q.b, p.k.h, pk->shape.size() == 4 ? pk->shape[2] : -1, p.k.e} ||
        pv->shape != std::vector<int64_t>{p.q.b, p.k.h, pk->shape[2], p.v.e}) {
      return absl::InvalidArgumentError(
          "past_key/past_value must be [B, kv_heads, past, head size]");
    }
    p.past = pk->shape[2];
  }
  p.total = p.past + p.k.s;
  // Y has Q's layout with V's head size.
  if (in[kQ]->shape.size() == 4) {
    p.y = {p.q.b, p.q.h, p.q.s, p.v.e, p.q.h * p.q.s * p.v.e, p.q.s * p.v.e, p.v.e};
    p.y_shape = {p.q.b, p.q.h, p.q.s, p.v.e};
  } else if (IsSequenceFirst(node)) {
    const int64_t row = p.q.h * p.v.e;
    p.y = {p.q.b, p.q.h, p.q.s, p.v.e, row, p.v.e, p.q.b * row};
    p.y_shape = {p.q.s, p.q.b, row};
  } else {
    p.y = {p.q.b, p.q.h, p.q.s, p.v.e, p.q.s * p.q.h * p.v.e, p.v.e, p.q.h * p.v.e};
    p.y_shape = {p.q.b, p.q.s, p.q.h * p.v.e};
  }
  p.present_k_shape = {p.q.b, p.k.h, p.total, p.k.e};
  p.present_v_shape = {p.q.b, p.k.h, p.total, p.v.e};
  return p;
}

// The copy of a [B, H, L, E] view into rows [at, at + L) of a dense
// [B, H, total, E] tensor.
StridedCopy IntoPresent(const View& src, int64_t total, int64_t at, int input) {
  StridedCopy c;
  c.src_index = input;
  c.shape = {src.b, src.h, src.s, src.e};
  c.src_strides = {src.sb, src.sh, src.ss, 1};
  c.dst_strides = {src.h * total * src.e, total * src.e, src.e, 1};
  c.dst_base = at * src.e;
  return c;
}

View Dense(const std::vector<int64_t>& shape) {
  return {
      shape[0], shape[1], shape[2], shape[3], shape[1] * shape[2] * shape[3], shape[2] * shape[3],
      shape[3]};
}

class AttentionOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    for (const char* name : {"is_causal", "q_num_heads", "kv_num_heads", "qk_matmul_output_mode"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kInt));
    }
    const int64_t mode = node.GetInt("qk_matmul_output_mode", 0);
    if (mode < 0 || mode > 3)
      return absl::InvalidArgumentError("qk_matmul_output_mode must be 0-3");
    RETURN_IF_ERROR(CheckAttributeType(node, kAttentionPackedQkvAttr, Attribute::Type::kInts));
    RETURN_IF_ERROR(CheckAttributeType(node, kAttentionSequenceFirstAttr, Attribute::Type::kInt));
    if (IsSequenceFirst(node) && node.FindAttribute("q_num_heads") == nullptr) {
      return absl::InvalidArgumentError("sequence-first Q/K/V are 3-D: q_num_heads is required");
    }
    RETURN_IF_ERROR(PinnedAttentionKernel(node).status());
    if (IsPacked(node) && (node.inputs.size() > kPastKey || node.outputs.size() > 1)) {
      return absl::InvalidArgumentError(
          "packed Q/K/V takes no past and gives no present or scores");
    }
    return absl::OkStatus();
  }

  // The unfused path's GEMMs take FP16 precision's plans.
  const OpTraits& traits() const override {
    static const OpTraits kTraits{.computes_on_gemm_engine = true};
    return kTraits;
  }

  absl::Status Infer(InferContext& ctx) const override {
    for (int i : {kQ, kK, kV}) {
      if (i != kQ && IsPacked(ctx.node)) continue;
      ASSIGN_OR_RETURN(const TensorDesc* t, RequireInput(ctx, i));
      RETURN_IF_ERROR(CheckDataType(t->dtype, {DataType::kFloat}, absl::StrCat("input ", i)));
    }
    ASSIGN_OR_RETURN(const AttentionPlan p, AttentionPlanOf(ctx.node, ctx.inputs));
    if (const TensorDesc* m = ctx.input(kMask)) {
      RETURN_IF_ERROR(CheckDataType(m->dtype, {DataType::kFloat, DataType::kBool}, "attn_mask"));
      RETURN_IF_ERROR(MaskStrides(*m, p).status());
    }
    if (const TensorDesc* n = ctx.input(kNonpad)) {
      RETURN_IF_ERROR(CheckDataType(n->dtype, {DataType::kInt64}, "nonpad_kv_seqlen"));
      if (n->shape != std::vector<int64_t>{p.q.b}) {
        return absl::InvalidArgumentError("nonpad_kv_seqlen must be [batch]");
      }
    }
    const std::vector<std::vector<int64_t>> shapes = {
        p.y_shape, p.present_k_shape, p.present_v_shape, {p.q.b, p.q.h, p.q.s, p.total}};
    for (size_t o = 0; o < ctx.outputs.size() && o < shapes.size(); ++o) {
      ctx.outputs[o].dtype = DataType::kFloat;
      ctx.outputs[o].shape = shapes[o];
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    std::vector<const TensorDesc*> in;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) in.push_back(ctx.input(i));
    ASSIGN_OR_RETURN(const AttentionPlan p, AttentionPlanOf(ctx.node(), in));
    const int64_t rows = p.q.b * p.q.h * p.q.s;
    std::vector<CompositeStep> steps;
    if (rows == 0) return std::make_unique<CompositeKernel>(std::move(steps));
    if (p.total == 0) return absl::UnimplementedError("Attention over no keys");
    auto has_output = [&](size_t o) {
      return ctx.num_outputs() > o && ctx.output(o).dtype != DataType::kUndefined;
    };
    std::optional<FlashAttentionProblem> fused = FusedProblem(ctx, p, has_output(3));
    std::optional<FlashAttentionTiling> tiling;
    if (fused) tiling = PlanFlashAttention(*fused, ctx.device().info());
    ASSIGN_OR_RETURN(const std::optional<AttentionKernel> pinned,
                     PinnedAttentionKernel(ctx.node()));
    const AttentionBuffers direct = DirectBuffers(ctx);
    const NodeBuffer& mask = direct.mask;
    if (tiling && p.past == 0 && !has_output(1) && !has_output(2)) {
      return Attend(ctx, *fused, *tiling, pinned, direct, std::move(steps));
    }
    if (IsPacked(ctx.node())) {
      return absl::UnimplementedError(
          "packed Q/K/V attention does not fit the fused kernel at this shape");
    }
    // Keys and values, past then new, dense in present_* (or scratch).
    NodeBuffer keys[2];
    for (int which = 0; which < 2; ++which) {
      const View& fresh = which == 0 ? p.k : p.v;
      const std::vector<int64_t>& shape = which == 0 ? p.present_k_shape : p.present_v_shape;
      keys[which] = has_output(1 + which)
                        ? NodeBuffer{NodeBuffer::Source::kOutput, static_cast<uint32_t>(1 + which)}
                        : NodeBuffer{NodeBuffer::Source::kScratch,
                                     ctx.RequestScratch(static_cast<uint64_t>(NumElements(shape)) *
                                                        sizeof(float))};
      std::vector<StridedCopy> copies;
      if (p.past > 0) {
        std::vector<int64_t> past_shape = shape;
        past_shape[2] = p.past;
        copies.push_back(IntoPresent(Dense(past_shape), p.total, 0, 1));
      }
      copies.push_back(IntoPresent(fresh, p.total, p.past, 0));
      ASSIGN_OR_RETURN(std::unique_ptr<Kernel> copy,
                       CreateStridedCopyKernel(ctx, DataType::kFloat, std::move(copies)));
      std::vector<NodeBuffer> sources = {
          {NodeBuffer::Source::kInput, static_cast<uint32_t>(which == 0 ? kK : kV)}};
      if (p.past > 0)
        sources.push_back({NodeBuffer::Source::kInput,
                           static_cast<uint32_t>(which == 0 ? kPastKey : kPastValue)});
      steps.push_back({std::move(copy), std::move(sources), {keys[which]}});
    }
    if (tiling) {  // keys and values now dense [B, Hkv, total, E]
      const int64_t e = p.k.e;
      fused->k_strides = fused->v_strides = {p.k.h * p.total * e, p.total * e, e};
      tiling = PlanFlashAttention(*fused, ctx.device().info());
    }
    if (tiling) {
      const AttentionBuffers io{{NodeBuffer::Source::kInput, kQ},
                                keys[0],
                                keys[1],
                                mask,
                                {NodeBuffer::Source::kOutput, 0}};
      return Attend(ctx, *fused, *tiling, pinned, io, std::move(steps));
    }
    if (pinned) {
      return absl::UnimplementedError(absl::StrCat(
          kAttentionKernelAttr, " pins the ", AttentionKernelName(*pinned),
          " attention, which does not serve this node (softcap, scores output, nonpad_kv_seqlen, "
          "differing Q/V head sizes, or a shape past the fused kernel's limits)"));
    }
    if (ctx.node().GetInt(kAttentionEmptyRowsZeroAttr, 0) != 0) {
      return absl::UnimplementedError(
          "fused attention (with its NaN guard) does not fit the fused kernel");
    }
    // The exact kernel's [rows, T] scratch and its indices.
    if (rows * p.total * std::max(p.q.e, p.v.e) >= (int64_t{1} << 31)) {
      return absl::UnimplementedError("Attention too large for 32-bit indexing");
    }
    ASSIGN_OR_RETURN(CompositeStep attend, AttendStep(ctx, p, keys, has_output(3)));
    steps.push_back(std::move(attend));
    return std::make_unique<CompositeKernel>(std::move(steps), "exact kernel (ops/attention)");
  }

 protected:
  // The tensor-core kernel on fp16 Q, K, V (an fp16 or bool mask, fp16 Y)
  // where it serves the node: no past keys or present outputs, the fused
  // kernel's problem, and the tensor-core kernel pinned or chosen as at FP16.
  // Null otherwise.
  absl::StatusOr<std::unique_ptr<Kernel>> CreateHalfKernel(KernelContext& ctx) const {
    std::vector<const TensorDesc*> in;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) in.push_back(ctx.input(i));
    ASSIGN_OR_RETURN(const AttentionPlan p, AttentionPlanOf(ctx.node(), in));
    auto has_output = [&](size_t o) {
      return ctx.num_outputs() > o && ctx.output(o).dtype != DataType::kUndefined;
    };
    const TensorDesc* mask = ctx.input(kMask);
    if (p.q.b * p.q.h * p.q.s == 0 || p.total == 0 || p.past != 0 || has_output(1) ||
        has_output(2) ||
        (mask != nullptr && mask->dtype != DataType::kFloat16 && mask->dtype != DataType::kBool)) {
      return nullptr;
    }
    const std::optional<FlashAttentionProblem> fused = FusedProblem(ctx, p, has_output(3));
    if (!fused) return nullptr;
    ASSIGN_OR_RETURN(const std::optional<AttentionKernel> pinned,
                     PinnedAttentionKernel(ctx.node()));
    const AttentionKernel kernel =
        pinned.value_or(ChooseAttentionKernel(*fused, ctx.device().info(), /*fp16=*/true));
    if (kernel != AttentionKernel::kCoopmat) return nullptr;
    return AttendOnTensorCores(ctx, *fused, pinned ? "pinned" : "chosen at this shape",
                               DirectBuffers(ctx), {}, /*half_io=*/true);
  }

  // Q, K, V, the mask and Y as the node binds them: K and V straight from
  // the inputs (packed Q/K/V: all three from input 0).
  static AttentionBuffers DirectBuffers(KernelContext& ctx) {
    const bool packed = IsPacked(ctx.node());
    return {{NodeBuffer::Source::kInput, kQ},
            {NodeBuffer::Source::kInput, packed ? 0u : static_cast<uint32_t>(kK)},
            {NodeBuffer::Source::kInput, packed ? 0u : static_cast<uint32_t>(kV)},
            {NodeBuffer::Source::kInput,
             ctx.input(kMask) != nullptr ? static_cast<uint32_t>(kMask) : 0u},
            {NodeBuffer::Source::kOutput, 0}};
  }

 private:
  // `steps` followed by the attention proper: the fused kernel or the
  // unfused GEMM lowering, as pinned or as ChooseAttentionKernel picks for
  // this shape. Unpinned, an unfused lowering the GEMM engine refuses falls
  // back to the fused kernel.
  static absl::StatusOr<std::unique_ptr<Kernel>> Attend(KernelContext& ctx,
                                                        const FlashAttentionProblem& f,
                                                        const FlashAttentionTiling& tiling,
                                                        std::optional<AttentionKernel> pinned,
                                                        const AttentionBuffers& io,
                                                        std::vector<CompositeStep> steps) {
    const gpu::DeviceInfo& info = ctx.device().info();
    const char* why = pinned ? "pinned" : "chosen at this shape";
    const AttentionKernel kernel = pinned.value_or(
        ChooseAttentionKernel(f, info, GetPrecision(ctx.node()) == Precision::kFp16));
    if (kernel == AttentionKernel::kCoopmat) {
      return AttendOnTensorCores(ctx, f, why, io, std::move(steps), /*half_io=*/false);
    }
    if (kernel == AttentionKernel::kUnfused) {
      absl::StatusOr<std::vector<CompositeStep>> unfused =
          UnfusedAttentionFits(f, info)
              ? UnfusedAttentionSteps(ctx, f, io)
              : absl::UnimplementedError(
                    absl::StrCat("the unfused attention's ", AttentionScoresBytes(f),
                                 " bytes of scores exceed its budget or the device's "
                                 "storage range, or packed Q/K/V offsets are unaligned"));
      if (unfused.ok()) {
        for (CompositeStep& s : *unfused) steps.push_back(std::move(s));
        return std::make_unique<CompositeKernel>(
            std::move(steps),
            absl::StrCat("unfused: GEMM Q.K' + masked softmax + GEMM P.V, ",
                         AttentionScoresBytes(f), " bytes of scores (", why, ")"));
      }
      if (pinned) return unfused.status();
    }
    ASSIGN_OR_RETURN(DispatchStep step, FlashAttentionStep(ctx, f, tiling, 3));
    return Finish(
        std::move(step), io, std::move(steps),
        absl::StrCat("fused flash-attention kernel, ", tiling.rows, "-row tiles (", why, ")"));
  }

  // `steps` followed by one fused kernel's dispatch `step` (bindings Q, K,
  // V, mask, Y), described as `description`.
  static std::unique_ptr<Kernel> Finish(DispatchStep step, const AttentionBuffers& io,
                                        std::vector<CompositeStep> steps, std::string description) {
    CompositeStep attend;
    attend.kernel = MakeDispatchKernel(std::move(step));
    attend.inputs = {io.q, io.k, io.v, io.mask};
    attend.outputs = {io.y};
    steps.push_back(std::move(attend));
    return std::make_unique<CompositeKernel>(std::move(steps), std::move(description));
  }

  // `steps` followed by the tensor-core kernel (its emulation where the
  // device has no cooperative matrices: only a pin gets there); `half_io`:
  // on fp16 tensors.
  static absl::StatusOr<std::unique_ptr<Kernel>> AttendOnTensorCores(
      KernelContext& ctx, const FlashAttentionProblem& f, const char* why,
      const AttentionBuffers& io, std::vector<CompositeStep> steps, bool half_io) {
    const bool emulated = !CoopmatAttentionNative(ctx.device().info());
    ASSIGN_OR_RETURN(const CoopmatAttentionPin pin, PinnedCoopmatAttentionTile(ctx.node()));
    const std::optional<CoopmatAttentionTile> tile =
        PlanCoopmatAttention(f, ctx.device().info(), emulated, pin);
    if (!tile && pin.softmax == CoopmatSoftmax::kRegisters && !emulated &&
        !ctx.device().info().coopmat_mma_fragments) {
      return absl::UnimplementedError(
          "the tensor-core attention's softmax in registers needs the mma.sync fragment layout, "
          "which this device's fragments do not have");
    }
    if (!tile && pin.rows > 16 && pin.softmax != CoopmatSoftmax::kRegisters) {
      return absl::UnimplementedError(absl::StrCat(
          "the tensor-core attention runs ", pin.rows,
          " query rows per subgroup only with its softmax in registers (a pin ending "
          "\":registers\")"));
    }
    if (!tile) {
      const std::string rows = pin.rows != 0 ? absl::StrCat(" x ", pin.rows, " rows") : "";
      return absl::UnimplementedError(absl::StrCat(
          "the tensor-core attention does not fit this device at head size ", f.head_size,
          pin.warps != 0 ? absl::StrCat(" as the pinned ", pin.warps, " subgroups x ", pin.keys,
                                        " keys", rows)
                         : ""));
    }
    ASSIGN_OR_RETURN(DispatchStep step, CoopmatAttentionStep(ctx, f, *tile, emulated, half_io, 3));
    return Finish(std::move(step), io, std::move(steps),
                  absl::StrCat("coopmat flash-attention kernel, ", tile->rows(), "-row tiles of ",
                               tile->keys, " keys", tile->registers ? ", softmax in registers" : "",
                               half_io ? ", fp16 tensors" : "",
                               emulated ? ", emulated" : "", " (", why, ")"));
  }

  // The attention as the fused kernel's problem, or nullopt where only the
  // exact kernel serves it. K and V strides are the inputs' (no past).
  static std::optional<FlashAttentionProblem> FusedProblem(KernelContext& ctx,
                                                           const AttentionPlan& p, bool qk_out) {
    const Node& node = ctx.node();
    if (qk_out || node.GetFloat("softcap", 0.0f) > 0 || ctx.input(kNonpad) != nullptr ||
        p.q.e != p.v.e) {
      return std::nullopt;
    }
    FlashAttentionProblem f;
    f.batch = p.q.b;
    f.heads = p.q.h;
    f.kv_heads = p.k.h;
    f.queries = p.q.s;
    f.keys = p.total;
    f.head_size = p.q.e;
    f.past = p.past;
    f.offsets = {p.q.off, p.k.off, p.v.off};
    f.q_strides = {p.q.sb, p.q.sh, p.q.ss};
    f.k_strides = {p.k.sb, p.k.sh, p.k.ss};
    f.v_strides = {p.v.sb, p.v.sh, p.v.ss};
    f.y_strides = {p.y.sb, p.y.sh, p.y.ss};
    if (const TensorDesc* mask = ctx.input(kMask)) {
      absl::StatusOr<std::array<int64_t, 5>> ms = MaskStrides(*mask, p);
      if (!ms.ok()) return std::nullopt;
      f.mask = mask->dtype == DataType::kBool ? FlashAttentionProblem::Mask::kBool
                                              : FlashAttentionProblem::Mask::kFloat;
      f.mask_strides = {(*ms)[0], (*ms)[1], (*ms)[2], (*ms)[3]};
      f.mask_len = (*ms)[4];
    }
    f.causal = node.GetInt("is_causal", 0) != 0;
    f.empty_rows_zero = node.GetInt(kAttentionEmptyRowsZeroAttr, 0) != 0;
    f.scale = node.GetFloat("scale", 1.0f / std::sqrt(static_cast<float>(p.q.e)));
    return f;
  }

  // Strides of the mask over [B, Hq, S, T] (0 where broadcast) and its length.
  static absl::StatusOr<std::array<int64_t, 5>> MaskStrides(const TensorDesc& m,
                                                            const AttentionPlan& p) {
    const std::vector<int64_t> full = {p.q.b, p.q.h, p.q.s, p.total};
    if (m.shape.empty() || m.shape.size() > 4 || m.shape.back() > p.total) {
      return absl::InvalidArgumentError(absl::StrCat("attn_mask ", ShapeString(m.shape),
                                                     " does not broadcast to ", ShapeString(full)));
    }
    std::array<int64_t, 5> out{0, 0, 0, 0, m.shape.back()};
    const std::vector<int64_t> own = Strides(m.shape);
    const size_t offset = 4 - m.shape.size();
    for (size_t d = 0; d < m.shape.size(); ++d) {
      const int64_t want = full[offset + d];
      const bool last = d + 1 == m.shape.size();
      if (m.shape[d] != 1 && m.shape[d] != want && !last) {
        return absl::InvalidArgumentError(absl::StrCat(
            "attn_mask ", ShapeString(m.shape), " does not broadcast to ", ShapeString(full)));
      }
      out[offset + d] = m.shape[d] == 1 && !last ? 0 : own[d];
    }
    return out;
  }

  static absl::StatusOr<CompositeStep> AttendStep(KernelContext& ctx, const AttentionPlan& p,
                                                  const NodeBuffer keys[2], bool qk_out) {
    const Node& node = ctx.node();
    const TensorDesc* mask = ctx.input(kMask);
    std::array<int64_t, 5> ms{0, 0, 0, 0, 0};
    if (mask != nullptr) {
      ASSIGN_OR_RETURN(ms, MaskStrides(*mask, p));
    }
    const float softcap = node.GetFloat("softcap", 0.0f);
    const float scale = node.GetFloat("scale", 1.0f / std::sqrt(static_cast<float>(p.q.e)));
    const int64_t rows = p.q.b * p.q.h * p.q.s;
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(rows))
        .U32(static_cast<uint32_t>(p.q.h))
        .U32(static_cast<uint32_t>(p.k.h))
        .U32(static_cast<uint32_t>(p.q.s))
        .U32(static_cast<uint32_t>(p.total))
        .U32(static_cast<uint32_t>(p.q.e))
        .U32(static_cast<uint32_t>(p.v.e))
        .U32(static_cast<uint32_t>(p.past));
    for (int64_t s :
         {p.q.sb, p.q.sh, p.q.ss, p.y.sb, p.y.sh, p.y.ss, ms[0], ms[1], ms[2], ms[3], ms[4]}) {
      step.push.U32(static_cast<uint32_t>(s));
    }
    step.push.F32(scale).F32(softcap);
    const uint32_t mask_kind = mask == nullptr ? 0u : mask->dtype == DataType::kBool ? 2u : 1u;
    const bool nonpad = ctx.input(kNonpad) != nullptr;
    ASSIGN_OR_RETURN(
        step.pipeline,
        ctx.GetPipeline(
            "ops/attention", 8, step.push.size(), {kAttentionLocal, 1, 1},
            {mask_kind, node.GetInt("is_causal", 0) != 0 ? 1u : 0u, softcap > 0 ? 1u : 0u,
             qk_out ? 1u : 0u, static_cast<uint32_t>(node.GetInt("qk_matmul_output_mode", 0)),
             nonpad ? 1u : 0u}));
    step.groups = GroupsFor(static_cast<uint64_t>(rows), kAttentionLocal, ctx.device());
    const uint32_t probs =
        ctx.RequestScratch(static_cast<uint64_t>(rows * p.total) * sizeof(float));
    // The step's own inputs: Q, keys, values, mask, nonpad; outputs: Y, QK.
    step.bindings = {BufferRef::Input(0),
                     BufferRef::Input(1),
                     BufferRef::Input(2),
                     BufferRef::Input(mask != nullptr ? 3 : 0),
                     BufferRef::Output(0),
                     BufferRef::Scratch(probs, gpu::Access::kReadWrite),
                     BufferRef::Output(qk_out ? 1 : 0),
                     BufferRef::Input(nonpad ? 4 : 0)};
    CompositeStep out;
    out.kernel = MakeDispatchKernel(std::move(step));
    out.inputs = {{NodeBuffer::Source::kInput, kQ},
                  keys[0],
                  keys[1],
                  {NodeBuffer::Source::kInput, mask != nullptr ? static_cast<uint32_t>(kMask) : 0u},
                  {NodeBuffer::Source::kInput, nonpad ? static_cast<uint32_t>(kNonpad) : 0u}};
    out.outputs = {{NodeBuffer::Source::kOutput, 0},
                   {NodeBuffer::Source::kOutput, qk_out ? 3u : 0u}};
    return out;
  }
};

// Float16 Q, K and V: the tensor-core kernel reads and writes them as they
// are where it serves the node; otherwise the fp32 kernels run between
// conversions, as for the other narrow types (ExactViaFloat32).
class NarrowAttentionOp : public ExactViaFloat32<AttentionOp> {
 public:
  const OpTraits& traits() const override {
    static const OpTraits kTraits{.computes_on_gemm_engine = true,
                                  .float16 = Float16Use::kComputes};
    return kTraits;
  }
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    if (ctx.input(kQ) != nullptr && ctx.input(kQ)->dtype == DataType::kFloat16) {
      ASSIGN_OR_RETURN(std::unique_ptr<Kernel> half, CreateHalfKernel(ctx));
      if (half != nullptr) return half;
    }
    return ExactViaFloat32<AttentionOp>::CreateKernel(ctx);
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Attention", 23, 27, NarrowAttentionOp);

}  // namespace vkserve
