// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/matmul_kernel.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/op_util.h"

namespace vkserve {
namespace {

// One tile shape of the matmul_tile_<BM>x<BN> shaders (compile-time constants
// there; mirrored here for selection). `speed` is the tile's relative
// throughput per useful FLOP once the device is full.
struct Tile {
  const char* name;  // shader suffix
  uint32_t bm, bn, bk, tm, tn;
  double speed;
  uint32_t threads() const { return (bm / tm) * (bn / tn); }
  // Two stages of A and B tiles, rows padded by one vec4.
  uint32_t shared_bytes() const { return 2 * bk * ((bm / 4 + 1) + (bn / 4 + 1)) * 16; }
  std::string shader() const { return absl::StrCat("ops/matmul_tile_", name); }
};

constexpr Tile kTiles[] = {
    {"128x64", 128, 64, 16, 8, 4, 1.0},  {"64x128", 64, 128, 16, 4, 8, 1.0},
    {"64x64", 64, 64, 16, 4, 4, 0.91},   {"32x64", 32, 64, 16, 4, 4, 0.95},
    {"64x32", 64, 32, 16, 4, 4, 0.92},   {"32x32", 32, 32, 16, 4, 4, 0.8},
    {"16x64", 16, 64, 16, 4, 4, 0.75},
};

// gemv.comp: rows of op(A) per workgroup, and its workgroup shapes.
constexpr int64_t kGemvRows = 4;
// Up to this many rows of op(A), gemv (re-reading B from cache per 4 rows)
// beats the smallest tile.
constexpr int64_t kGemvMaxM = 8;
constexpr std::array<uint32_t, 3> kGemvTransLocal = {32, 4, 1};  // LX over K, LY columns
constexpr std::array<uint32_t, 3> kGemvLocal = {16, 16, 1};      // LX x 4 columns, LY over K
constexpr uint32_t kReduceLocal = 256;
constexpr uint32_t kMaxSplits = 16;
constexpr int64_t kMaxElements = int64_t{1} << 31;

// Invocations that keep the device busy: an H100 has 132 SMs; a CPU device
// (lavapipe) needs few, but still gets split-K exercised.
double TargetInvocations(const gpu::DeviceInfo& info) {
  return info.type == VK_PHYSICAL_DEVICE_TYPE_CPU ? 4096.0 : 98304.0;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
uint32_t U32(int64_t v) { return static_cast<uint32_t>(v); }

// The K range per split: a multiple of `step`, and the split count it gives.
std::pair<uint32_t, uint32_t> Chunk(int64_t k, int64_t splits, int64_t step) {
  if (k == 0) return {U32(step), 1};
  const int64_t chunk = CeilDiv(CeilDiv(k, splits), step) * step;
  return {U32(chunk), U32(CeilDiv(k, chunk))};
}

bool IsGemv(const MatMulProblem& p) { return p.m <= kGemvMaxM; }

// Binds input `i`, or input 0 as a never-read placeholder when absent.
gpu::BufferRange InputOrPlaceholder(const RecordContext& ctx, int i) {
  if (i >= 0 && static_cast<size_t>(i) < ctx.inputs.size() && ctx.inputs[i].size > 0) {
    return ctx.inputs[i];
  }
  return ctx.inputs[0];
}

absl::Status CheckAligned16(const gpu::BufferRange& r, const char* what) {
  if (r.offset % 16 != 0) {
    return absl::InternalError(absl::StrCat("MatMul vector path needs a 16-byte aligned ", what,
                                            "; its offset is ", r.offset));
  }
  return absl::OkStatus();
}

class MatMulKernel : public Kernel {
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
  };
  explicit MatMulKernel(Config c) : c_(std::move(c)) {}

  absl::Status Record(const RecordContext& ctx) const override {
    if (!c_.main) return absl::OkStatus();
    const gpu::BufferRange a = ctx.inputs[c_.a_input];
    const gpu::BufferRange b = ctx.inputs[c_.b_input];
    const gpu::BufferRange bias = InputOrPlaceholder(ctx, c_.c_input);
    const gpu::BufferRange residual = InputOrPlaceholder(ctx, c_.residual_input);
    const gpu::BufferRange out = c_.reduce ? ctx.scratch[c_.scratch] : ctx.outputs[0];
    if (c_.vec_a) RETURN_IF_ERROR(CheckAligned16(a, "A"));
    if (c_.vec_b) RETURN_IF_ERROR(CheckAligned16(b, "B"));
    if (c_.vec_out) {
      RETURN_IF_ERROR(CheckAligned16(out, "output"));
      RETURN_IF_ERROR(CheckAligned16(ctx.outputs[0], "output"));
      if (c_.residual_input >= 0) RETURN_IF_ERROR(CheckAligned16(residual, "residual"));
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

 private:
  Config c_;
};

}  // namespace

void NormalizeMatMul(MatMulProblem* p) {
  // A 1-row A or 1-column B is the same bytes in either layout.
  if (p->m == 1) p->a_trans = false;
  if (p->n == 1) p->b_trans = true;
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
  if (p->batch.size() == 1 && p->b_batch_strides[0] == 0 && !p->a_trans &&
      p->a_batch_strides[0] == p->m * p->k && (p->c_input < 0 || p->c_stride_m == 0)) {
    p->m *= p->batch[0];
    p->batch.clear();
    p->a_batch_strides.clear();
    p->b_batch_strides.clear();
  }
  // Y = A x b with one column: Y^T = b^T x A^T has the same bytes and one row.
  if (p->n == 1 && p->m > 1) {
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

absl::StatusOr<MatMulChoice> ChooseMatMul(const MatMulProblem& p, const gpu::DeviceInfo& info) {
  const double target = TargetInvocations(info);
  int64_t batch = 1;
  for (int64_t d : p.batch) batch *= d;
  MatMulChoice choice;
  if (IsGemv(p)) {
    // Bandwidth-bound: split K only when far too few workgroups stream B.
    const auto& local = p.b_trans ? kGemvTransLocal : kGemvLocal;
    const int64_t cols = p.b_trans ? local[1] : local[0] * 4;
    const double threads = static_cast<double>(CeilDiv(p.n, cols) * batch) * local[0] * local[1];
    int64_t splits = 1;
    while (splits < kMaxSplits && p.k / (splits * 2) >= 256 && threads * splits < target / 2) {
      splits *= 2;
    }
    choice.shader = "ops/gemv";
    std::tie(choice.k_chunk, choice.splits) = Chunk(p.k, splits, 64);
    return choice;
  }
  // Tiled: the tile and K split minimizing padded work (plus the partial
  // sums' pass) over throughput, where throughput scales with the tile's
  // speed and the square root of the fraction of `target` invocations kept
  // in flight (fitted to H100 sweeps over BERT, GPT-2 and classifier shapes).
  constexpr int64_t kMinChunk = 96;
  double best_cost = 0;
  const Tile* best = nullptr;
  int64_t best_splits = 1;
  for (const Tile& t : kTiles) {
    if (t.threads() > info.max_workgroup_invocations || t.threads() > info.max_workgroup_size[0] ||
        t.shared_bytes() > info.max_shared_memory) {
      continue;
    }
    const int64_t tiles = CeilDiv(p.m, t.bm) * CeilDiv(p.n, t.bn) * batch;
    const double padded = static_cast<double>(CeilDiv(p.m, t.bm) * t.bm) *
                          static_cast<double>(CeilDiv(p.n, t.bn) * t.bn) *
                          static_cast<double>(std::max<int64_t>(p.k, 1)) * batch;
    for (int64_t splits = 1; splits <= kMaxSplits; splits *= 2) {
      if (splits > 1 && p.k / splits < kMinChunk) break;
      const double occupancy =
          std::min(1.0, static_cast<double>(tiles * splits * t.threads()) / target);
      const double reduce = splits > 1 ? static_cast<double>(p.m * p.n * batch) * splits * 8 : 0;
      const double cost = (padded + reduce) / (t.speed * std::sqrt(occupancy));
      if (best == nullptr || cost < best_cost * 0.999) {
        best = &t;
        best_cost = cost;
        best_splits = splits;
      }
    }
  }
  if (best == nullptr) {
    return absl::UnimplementedError("no MatMul tile fits this device's workgroup limits");
  }
  choice.shader = best->shader();
  std::tie(choice.k_chunk, choice.splits) = Chunk(p.k, best_splits, best->bk);
  return choice;
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateMatMulKernel(KernelContext& ctx,
                                                           MatMulProblem p) {
  MatMulKernel::Config c;
  int64_t total = p.m * p.n;
  for (int64_t d : p.batch) total *= d;
  if (total == 0) return std::make_unique<MatMulKernel>(std::move(c));
  NormalizeMatMul(&p);
  int64_t batch = 1;  // after normalization
  for (int64_t d : p.batch) batch *= d;
  if (p.batch.size() > 3) {
    return absl::UnimplementedError(
        absl::StrCat("MatMul broadcasting needs ", p.batch.size(),
                     " separate batch dims; at most 3 are supported"));
  }
  const gpu::DeviceInfo& info = ctx.device().info();
  ASSIGN_OR_RETURN(MatMulChoice choice, ChooseMatMul(p, info));
  if (static_cast<double>(total) * choice.splits >= static_cast<double>(kMaxElements) ||
      static_cast<uint64_t>(total) * choice.splits * 4 > info.max_storage_buffer_range) {
    std::tie(choice.k_chunk, choice.splits) = Chunk(p.k, 1, 16);
  }
  const bool gemv = choice.shader == "ops/gemv";
  const bool split = choice.splits > 1;

  // Workgroups.
  std::array<uint32_t, 3> local{1, 1, 1};
  if (gemv) {
    local = p.b_trans ? kGemvTransLocal : kGemvLocal;
    const int64_t cols = p.b_trans ? local[1] : local[0] * 4;
    c.main_groups = {U32(CeilDiv(p.n, cols)), U32(CeilDiv(p.m, kGemvRows)),
                     U32(batch * choice.splits)};
  } else {
    const Tile* tile = nullptr;
    for (const Tile& t : kTiles) {
      if (t.shader() == choice.shader) tile = &t;
    }
    local = {tile->threads(), 1, 1};
    c.main_groups = {U32(CeilDiv(p.n, tile->bn)), U32(CeilDiv(p.m, tile->bm)),
                     U32(batch * choice.splits)};
  }
  const int64_t groups[3] = {c.main_groups[0], c.main_groups[1], batch * choice.splits};
  for (int i = 0; i < 3; ++i) {
    if (groups[i] > info.max_workgroup_count[i]) {
      return absl::UnimplementedError(
          absl::StrCat("MatMul needs ", groups[i], " workgroups along dimension ", i,
                       "; the device allows ", info.max_workgroup_count[i]));
    }
  }

  // Vector paths: the contiguous dimension (and so every row and batch
  // offset) a multiple of 4 elements.
  const int64_t lda = p.a_trans ? p.m : p.k;
  const int64_t ldb = p.b_trans ? p.k : p.n;
  bool strides4 = true;
  for (size_t i = 0; i < p.batch.size(); ++i) {
    strides4 = strides4 && p.a_batch_strides[i] % 4 == 0 && p.b_batch_strides[i] % 4 == 0;
  }
  c.vec_a = strides4 && lda % 4 == 0;
  c.vec_b = strides4 && ldb % 4 == 0;
  c.vec_out = p.n % 4 == 0;

  const Epilogue& e = p.epilogue;
  const bool has_c = p.c_input >= 0;
  c.a_input = p.a_input;
  c.b_input = p.b_input;
  c.c_input = p.c_input;
  c.residual_input = e.residual != Epilogue::Residual::kNone ? e.residual_input : -1;
  const uint32_t act = static_cast<uint32_t>(e.activation.kind);
  const uint32_t residual = static_cast<uint32_t>(e.residual);
  ASSIGN_OR_RETURN(c.main, ctx.GetPipeline(choice.shader, 5, 88, local,
                                           {p.a_trans, p.b_trans, c.vec_a, c.vec_b, c.vec_out,
                                            has_c, act, residual, split}));

  // Batch dims, padded on the outside to three.
  std::vector<int64_t> dims(3 - p.batch.size(), 1), as(3 - p.batch.size(), 0),
      bs(3 - p.batch.size(), 0);
  dims.insert(dims.end(), p.batch.begin(), p.batch.end());
  as.insert(as.end(), p.a_batch_strides.begin(), p.a_batch_strides.end());
  bs.insert(bs.end(), p.b_batch_strides.begin(), p.b_batch_strides.end());
  PushConstants& pc = c.params;
  pc.U32(U32(p.m)).U32(U32(p.n)).U32(U32(p.k)).U32(U32(lda)).U32(U32(ldb));
  pc.U32(U32(has_c ? p.c_stride_m : 0)).U32(U32(has_c ? p.c_stride_n : 0));
  pc.U32(U32(dims[1])).U32(U32(dims[2]));
  pc.U32(U32(as[0])).U32(U32(as[1])).U32(U32(as[2]));
  pc.U32(U32(bs[0])).U32(U32(bs[1])).U32(U32(bs[2]));
  pc.U32(U32(batch)).U32(choice.k_chunk).U32(choice.splits);
  pc.F32(p.alpha).F32(p.beta).F32(e.activation.alpha).F32(e.activation.beta);

  if (split) {
    c.scratch = ctx.RequestScratch(static_cast<uint64_t>(total) * choice.splits * 4);
    ASSIGN_OR_RETURN(c.reduce, ctx.GetPipeline("ops/gemm_reduce", 5, 88, {kReduceLocal, 1, 1},
                                               {false, false, false, false, c.vec_out, has_c,
                                                act, residual, false}));
    c.reduce_groups = GroupsFor(c.vec_out ? total / 4 : total, kReduceLocal, ctx.device());
  }
  return std::make_unique<MatMulKernel>(std::move(c));
}

}  // namespace vkserve
