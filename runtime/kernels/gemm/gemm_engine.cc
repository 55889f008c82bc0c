// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/kernels/gemm/gemm_engine.h"

#include <algorithm>
#include <array>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kGemmEngineReduceLocal = 256;
constexpr int64_t kGemmEngineMaxElements = int64_t{1} << 31;
// Every path binds A, B, C, the residual and Y, and shares one 128-byte
// push-constant block (shaders/gemm/gemm_interface.glsl).
constexpr uint32_t kBindings = 5;
constexpr uint32_t kPushBytes = 128;

// Binds input `i`, or input 0 as a never-read placeholder when absent.
gpu::BufferRange GemmEngineInputOrPlaceholder(const RecordContext& ctx, int i) {
  if (i >= 0 && static_cast<size_t>(i) < ctx.inputs.size() && ctx.inputs[i].size > 0) {
    return ctx.inputs[i];
  }
  return ctx.inputs[0];
}

// Vector loads and stores move 4 elements: 16 bytes, or 8 for fp16.
absl::Status CheckAligned(const gpu::BufferRange& r, uint32_t bytes, const char* what) {
  if (r.offset % bytes != 0) {
    return absl::InternalError(absl::StrCat("GEMM vector path needs a ", bytes, "-byte aligned ",
                                            what, "; its offset is ", r.offset));
  }
  return absl::OkStatus();
}

class GemmKernel : public Kernel {
 public:
  struct Config {
    std::shared_ptr<const gpu::Pipeline> main;    // null: empty output
    std::shared_ptr<const gpu::Pipeline> reduce;  // split-K only
    PushConstants params;
    std::array<uint32_t, 3> main_groups{};
    std::array<uint32_t, 3> reduce_groups{};
    uint32_t scratch = 0;
    int a_input = 0, b_input = 1, c_input = -1, residual_input = -1;
    bool vec_a = false, vec_b = false, vec_out = false;
    bool vec8_a = false, vec8_b = false;  // 16-byte loads of an fp16 operand
    uint32_t vec_bytes = 16;
    uint32_t b_vec_bytes = 16;
    std::string description;  // the main shader and split, for inspect
  };
  explicit GemmKernel(Config c) : c_(std::move(c)) {}

  absl::Status Record(const RecordContext& ctx) const override {
    if (!c_.main) return absl::OkStatus();
    const gpu::BufferRange a = ctx.inputs[c_.a_input];
    const gpu::BufferRange b = ctx.inputs[c_.b_input];
    const gpu::BufferRange bias = GemmEngineInputOrPlaceholder(ctx, c_.c_input);
    const gpu::BufferRange residual = GemmEngineInputOrPlaceholder(ctx, c_.residual_input);
    const gpu::BufferRange out = c_.reduce ? ctx.scratch[c_.scratch] : ctx.outputs[0];
    const uint32_t vb = c_.vec_bytes;
    if (c_.vec_a) RETURN_IF_ERROR(CheckAligned(a, c_.vec8_a ? 16 : vb, "A"));
    if (c_.vec_b) RETURN_IF_ERROR(CheckAligned(b, c_.vec8_b ? 16 : c_.b_vec_bytes, "B"));
    if (c_.vec_out) {
      RETURN_IF_ERROR(CheckAligned(out, c_.reduce ? 16 : vb, "output"));
      RETURN_IF_ERROR(CheckAligned(ctx.outputs[0], vb, "output"));
      if (c_.residual_input >= 0) RETURN_IF_ERROR(CheckAligned(residual, vb, "residual"));
    }
    const gpu::Binding bindings[] = {{a, gpu::Access::kRead},
                                     {b, gpu::Access::kRead},
                                     {bias, gpu::Access::kRead},
                                     {residual, gpu::Access::kRead},
                                     {out, gpu::Access::kWrite}};
    RETURN_IF_ERROR(ctx.command_buffer.Dispatch(c_.main, bindings, c_.params.bytes(),
                                                c_.main_groups, ctx.label));
    if (!c_.reduce) return absl::OkStatus();
    const gpu::Binding reduce_bindings[] = {{out, gpu::Access::kRead},
                                            {out, gpu::Access::kRead},
                                            {bias, gpu::Access::kRead},
                                            {residual, gpu::Access::kRead},
                                            {ctx.outputs[0], gpu::Access::kWrite}};
    return ctx.command_buffer.Dispatch(c_.reduce, reduce_bindings, c_.params.bytes(),
                                       c_.reduce_groups, ctx.label);
  }

  std::string Describe() const override { return c_.description; }

 private:
  Config c_;
};

GemmOperandKind GemmEngineKindOf(const GemmProblem& p) {
  if (!p.b_im2col) return GemmOperandKind::kMatrix;
  if (p.b_im2col->nhwc) return GemmOperandKind::kNhwc;
  return p.b_im2col->pointwise ? GemmOperandKind::kPointwise : GemmOperandKind::kIm2col;
}

GemmShape GemmEngineShapeOf(const GemmProblem& p) {
  GemmShape s;
  s.fp16 = p.precision == Precision::kFp16;
  s.f16_io = p.dtype == DataType::kFloat16;
  s.b_f16 = p.b_f16;
  s.acc16 = p.precision == Precision::kFp16 && p.accumulation == Accumulation::kFp16;
  s.m = p.m;
  s.n = p.n;
  s.k = p.k;
  for (int64_t d : p.batch) s.batch *= d;
  s.b_trans = p.b_trans;
  s.b_kind = GemmEngineKindOf(p);
  return s;
}

// The plan pinned by the node's kGemmPlanAttr, or the cost model's.
absl::StatusOr<GemmPlan> PlanFor(const Node& node, const GemmProblem& p,
                                 const gpu::DeviceInfo& info) {
  const Attribute* pinned = node.FindAttribute(kGemmPlanAttr);
  if (pinned == nullptr) return ChooseGemm(p, info);
  if (pinned->type != Attribute::Type::kString) {
    return absl::InvalidArgumentError(absl::StrCat(kGemmPlanAttr, " must be a string"));
  }
  return ParseGemmPlan(pinned->s, GemmEngineShapeOf(p), info);
}

bool AllMultiplesOf(int64_t n, const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [n](int64_t x) { return x % n == 0; });
}

// The output view, dense [batch, M, N] unless the problem names one.
OutputView GemmEngineViewOf(const GemmProblem& p) {
  if (p.output) return *p.output;
  return {p.n, p.m * p.n, p.n, 0};
}

// Workgroup counts of the main dispatch (its third dimension batch x
// splits), within the device's limits.
absl::Status SetWorkgroups(const GemmProblem& p, const GemmPlan& plan, int64_t batch,
                           const gpu::DeviceInfo& info, GemmKernel::Config* c,
                           std::array<uint32_t, 3>* local) {
  if (plan.gemv()) {
    *local = GemvLocal(p.b_trans);
    const int64_t cols = p.b_trans ? (*local)[1] : (*local)[0] * 4;
    c->main_groups = {U32(CeilDiv(p.n, cols)), U32(CeilDiv(p.m, kGemvRows)), 0};
  } else if (plan.coopmat != nullptr) {
    *local = {plan.coopmat->threads(), 1, 1};
    c->main_groups = {U32(CeilDiv(p.n, plan.coopmat->bn)), U32(CeilDiv(p.m, plan.coopmat->bm)), 0};
  } else {
    *local = {plan.tile->threads(), 1, 1};
    c->main_groups = {U32(CeilDiv(p.n, plan.tile->bn)), U32(CeilDiv(p.m, plan.tile->bm)), 0};
  }
  const int64_t groups[3] = {c->main_groups[0], c->main_groups[1], batch * plan.splits};
  for (int i = 0; i < 3; ++i) {
    if (groups[i] > info.max_workgroup_count[i]) {
      return absl::UnimplementedError(
          absl::StrCat("the GEMM needs ", groups[i], " workgroups along dimension ", i,
                       "; the device allows ", info.max_workgroup_count[i]));
    }
  }
  c->main_groups[2] = U32(groups[2]);
  return absl::OkStatus();
}

// A and B's row strides as stored.
struct LeadingDims {
  int64_t lda;
  int64_t ldb;  // im2col: elements per image
};

// Vector paths: an operand's contiguous dimension (and so every row, image
// and batch offset) a multiple of 4 elements. An operand stored in fp16
// and read by a tensor-core kernel (`coopmat`: its RAW loads) also gets
// 16-byte loads of 8 halves when its contiguous extent, row stride and
// batch strides are multiples of 8.
LeadingDims SetVectorPaths(const GemmProblem& p, const OutputView& view, bool coopmat,
                           GemmKernel::Config* c) {
  const int64_t lda = p.lda != 0 ? p.lda : p.a_trans ? p.m : p.k;
  int64_t ldb = p.ldb != 0 ? p.ldb : p.b_trans ? p.k : p.n;
  c->vec_a = AllMultiplesOf(4, p.a_batch_strides) && lda % 4 == 0;
  if (p.b_im2col && p.b_im2col->nhwc) {
    // The NHWC loader's 16-byte loads (checked at record time); ldb carries
    // the output rows per image (gemm_load_im2col_nhwc.glsl).
    ldb = p.b_im2col->window.out_h;
    c->vec_b = true;
  } else if (p.b_im2col) {
    ldb = p.b_im2col->image_stride;
    c->vec_b = p.b_im2col->pointwise && view.n_inner % 4 == 0 && ldb % 4 == 0 &&
               AllMultiplesOf(4, p.b_batch_strides);
  } else {
    c->vec_b = AllMultiplesOf(4, p.b_batch_strides) && ldb % 4 == 0;
  }
  c->vec_out =
      AllMultiplesOf(4, {view.n_inner, view.batch_stride, view.m_stride, view.image_stride});
  if (p.b_im2col && p.b_im2col->nhwc) {
    // The NHWC variants store 4 rows (channels) at once (gemm_coopmat.glsl).
    c->vec_out = view.m_stride == 1 && AllMultiplesOf(4, {view.batch_stride, view.image_stride});
  }
  const bool f16_io = p.dtype == DataType::kFloat16;
  c->vec8_a = coopmat && f16_io && c->vec_a && AllMultiplesOf(8, {lda, p.a_trans ? p.m : p.k}) &&
              AllMultiplesOf(8, p.a_batch_strides);
  c->vec8_b = coopmat && (f16_io || p.b_f16) && !p.b_im2col && c->vec_b &&
              AllMultiplesOf(8, {ldb, p.b_trans ? p.k : p.n}) &&
              AllMultiplesOf(8, p.b_batch_strides);
  if (p.b_im2col && p.b_im2col->nhwc) c->vec8_b = true;
  return {lda, ldb};
}

// The main shader's specialization constants (gemm_interface.glsl, ids 3..).
std::vector<uint32_t> MainSpecConstants(const GemmProblem& p, const GemmKernel::Config& c,
                                        bool split) {
  const Epilogue& e = p.epilogue;
  const Window2D w = p.b_im2col ? p.b_im2col->window : Window2D{};
  const bool im2col = p.b_im2col.has_value();
  return {p.a_trans,
          p.b_trans,
          c.vec_a,
          c.vec_b,
          c.vec_out,
          p.c_input >= 0,
          static_cast<uint32_t>(e.activation.kind),
          static_cast<uint32_t>(e.residual),
          split,
          im2col ? U32(w.kernel_h) : 1u,
          im2col ? U32(w.kernel_w) : 1u,
          im2col ? U32(w.stride_h) : 1u,
          im2col ? U32(w.stride_w) : 1u,
          im2col ? U32(w.dilation_h) : 1u,
          im2col ? U32(w.dilation_w) : 1u,
          im2col && p.b_im2col->pointwise,
          p.precision == Precision::kFp16,
          c.vec8_a,
          c.vec8_b};
}

// The push-constant block (gemm_interface.glsl's Params), batch dims padded
// on the outside to three.
PushConstants GemmParams(const GemmProblem& p, const GemmPlan& plan, int64_t batch, LeadingDims ld,
                         const OutputView& view) {
  std::vector<int64_t> dims(3 - p.batch.size(), 1), as(3 - p.batch.size(), 0),
      bs(3 - p.batch.size(), 0);
  dims.insert(dims.end(), p.batch.begin(), p.batch.end());
  as.insert(as.end(), p.a_batch_strides.begin(), p.a_batch_strides.end());
  bs.insert(bs.end(), p.b_batch_strides.begin(), p.b_batch_strides.end());
  const bool has_c = p.c_input >= 0;
  const Epilogue& e = p.epilogue;
  const Window2D w = p.b_im2col ? p.b_im2col->window : Window2D{};
  PushConstants pc;
  pc.U32(U32(p.m)).U32(U32(p.n)).U32(U32(p.k)).U32(U32(ld.lda)).U32(U32(ld.ldb));
  pc.U32(U32(dims[1])).U32(U32(dims[2]));
  pc.U32(U32(as[0])).U32(U32(as[1])).U32(U32(as[2]));
  pc.U32(U32(bs[0])).U32(U32(bs[1])).U32(U32(bs[2]));
  pc.U32(U32(batch)).U32(plan.k_chunk).U32(plan.splits);
  pc.U32(U32(has_c ? p.c_stride_m : 0)).U32(U32(has_c ? p.c_stride_n : 0));
  pc.U32(U32(has_c ? p.c_stride_batch : 0));
  pc.U32(U32(view.n_inner)).U32(U32(view.batch_stride)).U32(U32(view.m_stride));
  pc.U32(U32(view.image_stride));
  pc.F32(p.alpha).F32(p.beta).F32(e.activation.alpha).F32(e.activation.beta);
  pc.U32(U32(w.in_h)).U32(U32(w.in_w)).U32(U32(w.out_w)).I32(w.pad_top).I32(w.pad_left);
  return pc;
}

}  // namespace

void NormalizeGemm(GemmProblem* p) {
  if (p->b_im2col || p->output) return;
  // Custom row strides: only the batch dims change (the relayouts below
  // assume dense rows).
  const bool strided = p->lda != 0 || p->ldb != 0;
  // A 1-row A or 1-column B is the same bytes in either layout.
  if (p->m == 1 && !strided) p->a_trans = false;
  if (p->n == 1 && !strided) p->b_trans = true;
  // Size-1 batch dims index nothing.
  std::vector<int64_t> batch, as, bs;
  for (size_t i = 0; i < p->batch.size(); ++i) {
    if (p->batch[i] == 1) continue;
    if (!batch.empty() && as.back() == p->a_batch_strides[i] * p->batch[i] &&
        bs.back() == p->b_batch_strides[i] * p->batch[i]) {
      // Contiguous with the previous (outer) dim in both operands: merge.
      batch.back() *= p->batch[i];
      as.back() = p->a_batch_strides[i];
      bs.back() = p->b_batch_strides[i];
      continue;
    }
    batch.push_back(p->batch[i]);
    as.push_back(p->a_batch_strides[i]);
    bs.push_back(p->b_batch_strides[i]);
  }
  p->batch = std::move(batch);
  p->a_batch_strides = std::move(as);
  p->b_batch_strides = std::move(bs);
  // [batch, M, K] x [K, N]: one [batch * M, K] x [K, N] product.
  if (strided) return;
  if (p->batch.size() == 1 && p->b_batch_strides[0] == 0 && !p->a_trans &&
      p->a_batch_strides[0] == p->m * p->k && (p->c_input < 0 || p->c_stride_m == 0)) {
    p->m *= p->batch[0];
    p->batch.clear();
    p->a_batch_strides.clear();
    p->b_batch_strides.clear();
  }
  // Y = A x b with one column: Y^T = b^T x A^T has the same bytes and one row
  // (not for an fp16 B, which only B's loaders read).
  if (p->n == 1 && p->m > 1 && !p->b_f16) {
    const bool a_trans = p->a_trans;
    std::swap(p->a_input, p->b_input);
    std::swap(p->a_batch_strides, p->b_batch_strides);
    std::swap(p->c_stride_m, p->c_stride_n);
    p->n = p->m;
    p->m = 1;
    p->a_trans = false;
    p->b_trans = !a_trans;
  }
}

absl::StatusOr<GemmPlan> ChooseGemm(const GemmProblem& p, const gpu::DeviceInfo& info) {
  return ChooseGemmPlan(GemmEngineShapeOf(p), info);
}

absl::StatusOr<GemmPlan> PlanGemmFor(const Node& node, GemmProblem p, const gpu::DeviceInfo& info) {
  NormalizeGemm(&p);
  p.precision = GetPrecision(node);
  p.accumulation = GetAccumulation(node);
  return PlanFor(node, p, info);
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateGemmKernel(KernelContext& ctx, GemmProblem p) {
  GemmKernel::Config c;
  int64_t total = p.m * p.n;
  for (int64_t d : p.batch) total *= d;
  if (total == 0) return std::make_unique<GemmKernel>(std::move(c));
  NormalizeGemm(&p);
  p.precision = GetPrecision(ctx.node());
  p.accumulation = GetAccumulation(ctx.node());
  if (p.batch.size() > 3) {
    return absl::UnimplementedError(absl::StrCat("the GEMM has ", p.batch.size(),
                                                 " separate batch dims; at most 3 are supported"));
  }
  int64_t batch = 1;  // after normalization
  for (int64_t d : p.batch) batch *= d;
  const gpu::DeviceInfo& info = ctx.device().info();
  const GemmOperandKind kind = GemmEngineKindOf(p);
  const bool f16_io = p.dtype == DataType::kFloat16;
  if (f16_io && !ctx.device().has_16bit_storage()) {
    return absl::UnimplementedError(
        "fp16 GEMMs need 16-bit storage buffers, which this device lacks");
  }
  if (p.b_f16 && (f16_io || p.b_im2col)) {
    return absl::InternalError("an fp16 B needs fp32 tensors and a matrix B");
  }
  if (p.b_im2col && p.b_im2col->nhwc) {
    const Window2D& w = p.b_im2col->window;
    const int64_t taps = int64_t{w.kernel_h} * w.kernel_w;
    if (p.k % taps != 0 || (p.k / taps) % 8 != 0 || batch != 1 || p.b_im2col->pointwise) {
      return absl::InternalError(
          "the NHWC loader needs one group and a multiple of 8 channels, not pointwise");
    }
  }
  c.vec_bytes = f16_io ? 8 : 16;
  c.b_vec_bytes = f16_io || p.b_f16 ? 8 : 16;
  ASSIGN_OR_RETURN(GemmPlan plan, PlanFor(ctx.node(), p, info));
  if (static_cast<double>(total) * plan.splits >= static_cast<double>(kGemmEngineMaxElements) ||
      static_cast<uint64_t>(total) * plan.splits * 4 > info.max_storage_buffer_range) {
    plan.splits = 1;
    plan.k_chunk = U32(std::max<int64_t>(CeilDiv(p.k, 16) * 16, 16));
  }
  const bool split = plan.splits > 1;
  std::array<uint32_t, 3> local{1, 1, 1};
  RETURN_IF_ERROR(SetWorkgroups(p, plan, batch, info, &c, &local));
  const OutputView view = GemmEngineViewOf(p);
  const LeadingDims ld = SetVectorPaths(p, view, plan.coopmat != nullptr, &c);
  const Epilogue& e = p.epilogue;
  const bool has_c = p.c_input >= 0;
  c.a_input = p.a_input;
  c.b_input = p.b_input;
  c.c_input = p.c_input;
  c.residual_input = e.residual != Epilogue::Residual::kNone ? e.residual_input : -1;
  const std::string shader = plan.shader(kind, f16_io, p.b_f16, info.cooperative_matrix_khr);
  ASSIGN_OR_RETURN(c.main, ctx.GetPipeline(shader, kBindings, kPushBytes, local,
                                           MainSpecConstants(p, c, split)));
  c.description = split ? absl::StrCat(shader, ", K split ", plan.splits, " ways") : shader;
  // Where fp16 sums were asked for, which sums this GEMM got and why.
  if (plan.acc16) {
    absl::StrAppend(&c.description, ", fp16 accumulation");
  } else if (plan.fp32_accumulation_reason != nullptr) {
    absl::StrAppend(&c.description, ", fp32 accumulation (", plan.fp32_accumulation_reason, ")");
  }
  c.params = GemmParams(p, plan, batch, ld, view);
  const uint32_t act = static_cast<uint32_t>(e.activation.kind);
  const uint32_t residual = static_cast<uint32_t>(e.residual);

  if (split) {
    // The reduction's vector stores run along columns, which an NHWC view
    // does not keep adjacent.
    const bool reduce_vec = c.vec_out && kind != GemmOperandKind::kNhwc;
    c.scratch = ctx.RequestScratch(static_cast<uint64_t>(total) * plan.splits * 4);
    ASSIGN_OR_RETURN(
        c.reduce,
        ctx.GetPipeline(f16_io ? "ops/gemm_reduce_f16" : "ops/gemm_reduce", kBindings, kPushBytes,
                        {kGemmEngineReduceLocal, 1, 1},
                        {false, false, false, false, reduce_vec, has_c, act, residual, false}));
    c.reduce_groups =
        GroupsFor(reduce_vec ? total / 4 : total, kGemmEngineReduceLocal, ctx.device());
  }
  return std::make_unique<GemmKernel>(std::move(c));
}

}  // namespace vkserve
