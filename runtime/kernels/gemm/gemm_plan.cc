// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/kernels/gemm/gemm_plan.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "runtime/op/op_util.h"
#include "runtime/kernels/tensor_cores.h"

namespace vkserve {
namespace {

// The tiles come from shaders/gemm/gemm_tiles.def, the table the shader
// build makes its variants from, so every tile offered here is built.
constexpr GemmTile kGemmTiles[] = {
// clang-format off
#define VKSERVE_GEMM_TILE(bm, bn, bk, tm, tn, im2col, speed_matrix, speed_im2col, speed_pointwise, \
                          max_splits)                                                              \
  {#bm "x" #bn, bm, bn, bk, tm, tn, speed_matrix, speed_im2col, speed_pointwise, max_splits,     \
   im2col},
// clang-format on
#include "shaders/gemm/gemm_tiles.def"
#undef VKSERVE_GEMM_TILE
};

// Tensor-core tiles, from shaders/gemm/gemm_coopmat_tiles.def (each is
// built per matrix shape there). The wave model's figures are fitted on the
// H100 per cooperative-matrix extension by benchmarks/ops/fit_coopmat_cost.py
// from a sweep of every tile with 1, 2 and 4 K splits pinned, FP16 with fp16
// weights (benchmarks/ops/coopmat_sweep.py); the NV fit over six square and
// BERT shapes had a median error of 6 %, and the KHR columns still hold it
// (the table says why). `resident` follows each variant's
// register count through that extension (`vkserve infer
// --pipeline-statistics`; NV: 255, 160, 244, 248 and 110 registers); 64x64s1
// was not swept there and is rated from its 2048^3 time against 64x64's.
// `speed` serves devices that do not report their SMs.
constexpr CoopmatTile kCoopmatTiles[] = {
// clang-format off
#define VKSERVE_GEMM_COOPMAT_TILE(name, bm, bn, bk, warps_m, warps_n, stages, prefetch, cm_m, \
                                  cm_n, cm_k, speed, nv_resident, nv_step_us, nv_wave_us,     \
                                  khr_resident, khr_step_us, khr_wave_us)                     \
  {name, bm, bn, bk, warps_m, warps_n, stages, {cm_m, cm_n, cm_k}, speed,                     \
   {nv_resident, nv_step_us, nv_wave_us}, {khr_resident, khr_step_us, khr_wave_us}},
#define VKSERVE_GEMM_COOPMAT_SPLIT(extension, split_us, partial_us_per_million)
// clang-format on
#include "shaders/gemm/gemm_coopmat_tiles.def"
#undef VKSERVE_GEMM_COOPMAT_TILE
#undef VKSERVE_GEMM_COOPMAT_SPLIT
};

// The wave model's split-K price through one extension, from the same
// table: the reduction dispatch, and per million partial sums written and
// read back.
struct CoopmatSplitFigures {
  std::string_view extension;  // "nv" or "khr"
  double split_us, partial_us_per_million;
};
constexpr CoopmatSplitFigures kCoopmatSplits[] = {
// clang-format off
#define VKSERVE_GEMM_COOPMAT_TILE(...)
#define VKSERVE_GEMM_COOPMAT_SPLIT(extension, split_us, partial_us_per_million) \
  {#extension, split_us, partial_us_per_million},
// clang-format on
#include "shaders/gemm/gemm_coopmat_tiles.def"
#undef VKSERVE_GEMM_COOPMAT_TILE
#undef VKSERVE_GEMM_COOPMAT_SPLIT
};

constexpr const CoopmatSplitFigures* FindCoopmatSplit(std::string_view extension) {
  for (const CoopmatSplitFigures& f : kCoopmatSplits) {
    if (f.extension == extension) return &f;
  }
  return nullptr;
}
static_assert(std::size(kCoopmatSplits) == 2 && FindCoopmatSplit("nv") != nullptr &&
                  FindCoopmatSplit("khr") != nullptr,
              "shaders/gemm/gemm_coopmat_tiles.def: one VKSERVE_GEMM_COOPMAT_SPLIT row per "
              "extension, nv and khr");

// The epilogue stages at least one accumulator per subgroup, fp32 rows
// padded by 4 floats, in the A/B stages (gemm_coopmat.glsl's EPI_FRAGS).
constexpr bool EpilogueFitsStages() {
  for (const CoopmatTile& t : kCoopmatTiles) {
    if (t.warps_m * t.warps_n * t.shape.m * (t.shape.n + 4) * 4 > t.shared_bytes()) return false;
  }
  return true;
}
static_assert(EpilogueFitsStages(),
              "shaders/gemm/gemm_coopmat_tiles.def: a tile's stages cannot hold its epilogue");

constexpr const CoopmatSplitFigures& kNvSplit = *FindCoopmatSplit("nv");
constexpr const CoopmatSplitFigures& kKhrSplit = *FindCoopmatSplit("khr");

constexpr size_t CountIm2colTiles() {
  size_t n = 0;
  for (const GemmTile& t : kGemmTiles) n += t.im2col_order > 0 ? 1 : 0;
  return n;
}

// The table's invariants, checked as it compiles: a tile has im2col and
// pointwise speeds exactly when its im2col variant is built, those tiles
// hold the places 1..n of the visiting order once each, and no tile splits
// K past the cap.
constexpr bool ValidGemmTiles() {
  for (const GemmTile& t : kGemmTiles) {
    const bool built = t.im2col_order > 0;
    if (built != (t.speed_im2col > 0) || built != (t.speed_pointwise > 0)) return false;
    if (t.max_splits < 1 || t.max_splits > kGemmMaxSplits) return false;
  }
  for (size_t place = 1; place <= CountIm2colTiles(); ++place) {
    size_t holders = 0;
    for (const GemmTile& t : kGemmTiles) holders += t.im2col_order == place ? 1 : 0;
    if (holders != 1) return false;
  }
  return true;
}
static_assert(ValidGemmTiles(), "shaders/gemm/gemm_tiles.def: inconsistent IM2COL or speeds");

// Each doubling of the splits must save this share of the time: the fit's
// errors are of that order, and a near tie is better kept in one pass (on
// BERT b8's FFN2, 128x128w4/4 and 64x64/2 tie in the model but measure
// 77 and 59 us).
constexpr double kCoopmatSplitMargin = 0.03;

// The order the cost model visits tiles in per B loader: on a cost within
// 0.1% the earlier tile wins (each loader's order is part of its
// calibration). The matrix loader takes the table's order, the im2col and
// pointwise loaders the tiles' im2col_order.
constexpr auto kMatrixOrder = [] {
  std::array<size_t, std::size(kGemmTiles)> order{};
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  return order;
}();
constexpr auto kIm2colOrder = [] {
  std::array<size_t, CountIm2colTiles()> order{};
  for (size_t i = 0; i < std::size(kGemmTiles); ++i) {
    if (kGemmTiles[i].im2col_order > 0) order[kGemmTiles[i].im2col_order - 1] = i;
  }
  return order;
}();

constexpr int64_t kGemvChunkStep = 64;

// The cost model's constants for one B loader on one kind of device, in
// microseconds. A plan costs
//
//   (padded FLOPs + partial_flops * partial sums) / (flops_per_us * s * b^p)
//     + dispatch_us * dispatches + partial_us * (splits + partial_extra) * outputs
//
// where b = min(1, invocations / target) is how busy the dispatch keeps the
// device, p = occupancy_power, and s is the tile's speed, or speed^b when
// speed_needs_busy (below a full device the GPU is latency-bound and the
// tile's efficiency matters less). Splitting K (powers of two) fills the
// device when there are few output tiles, at the price of the reduction
// pass. The matrix loader was fitted to H100 sweeps over BERT, GPT-2 and
// classifier shapes, the im2col loaders to ResNet / MobileNet /
// EfficientNet convolutions (~20 TFLOP/s for good tiles, ~5 us per
// dispatch, ~2.5 TB/s); a CPU device (lavapipe) fills with few invocations
// but still gets split-K when a dispatch would run on a few cores.
struct Calibration {
  double target;
  double flops_per_us;
  double occupancy_power;
  bool speed_needs_busy;
  double dispatch_us;
  double partial_flops;
  double partial_us;
  double partial_extra;
  int64_t min_chunk;  // smallest K per split; 0: the tile's BK
};

const Calibration& CalibrationFor(GemmOperandKind kind, const gpu::DeviceInfo& info,
                                  bool coopmat = false) {
  static constexpr Calibration kMatrixGpu{98304, 1, 0.5, false, 0, 16, 0, 0, 96};
  static constexpr Calibration kMatrixCpu{4096, 1, 0.5, false, 0, 16, 0, 0, 96};
  // Tensor cores on a device that does not report its SMs, and Conv's
  // im2col loaders (else the wave model, WaveCost): the matrix loader's form
  // (padded work over occupancy) choosing between the coopmat tiles by
  // their speeds.
  static constexpr Calibration kCoopmatGpu{98304, 1, 0.5, false, 0, 16, 0, 0, 64};
  if (coopmat) return kCoopmatGpu;
  static constexpr Calibration kIm2colGpu{40960, 2e7, 1, true, 5, 0, 4 / 2.5e6, 1, 0};
  static constexpr Calibration kIm2colCpu{4096, 5e4, 1, true, 20, 0, 4 / 2e4, 1, 0};
  const bool cpu = info.type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  if (kind == GemmOperandKind::kMatrix) return cpu ? kMatrixCpu : kMatrixGpu;
  return cpu ? kIm2colCpu : kIm2colGpu;
}

bool Fits(const GemmTile& t, const gpu::DeviceInfo& info) {
  return t.threads() <= info.max_workgroup_invocations &&
         t.threads() <= info.max_workgroup_size[0] && t.shared_bytes() <= info.max_shared_memory;
}

// Fills k_chunk (a multiple of `step`) and the splits that chunk gives.
void SetChunk(int64_t k, int64_t splits, int64_t step, GemmPlan* plan) {
  if (k == 0) {
    plan->k_chunk = static_cast<uint32_t>(step);
    plan->splits = 1;
    return;
  }
  const int64_t chunk = CeilDiv(CeilDiv(k, splits), step) * step;
  plan->k_chunk = static_cast<uint32_t>(chunk);
  plan->splits = static_cast<uint32_t>(CeilDiv(k, chunk));
}

// Bandwidth-bound: split K only when far too few workgroups stream B.
GemmPlan ChooseGemv(const GemmShape& s, const gpu::DeviceInfo& info) {
  const std::array<uint32_t, 3> local = GemvLocal(s.b_trans);
  const int64_t cols = s.b_trans ? local[1] : local[0] * 4;
  const double threads = static_cast<double>(CeilDiv(s.n, cols) * s.batch) * local[0] * local[1];
  const double target = CalibrationFor(GemmOperandKind::kMatrix, info).target;
  int64_t splits = 1;
  while (splits < kGemmMaxSplits && s.k / (splits * 2) >= 256 && threads * splits < target / 2) {
    splits *= 2;
  }
  GemmPlan plan;
  SetChunk(s.k, splits, kGemvChunkStep, &plan);
  return plan;
}

// What the cost model needs of a tile.
struct Candidate {
  uint32_t bm, bn, bk, threads;
  double speed;
};

double Cost(const GemmShape& s, const Candidate& t, int64_t splits, const Calibration& c) {
  const int64_t tiles = CeilDiv(s.m, t.bm) * CeilDiv(s.n, t.bn) * s.batch;
  const double padded = 2.0 * static_cast<double>(CeilDiv(s.m, t.bm) * t.bm) *
                        static_cast<double>(CeilDiv(s.n, t.bn) * t.bn) *
                        static_cast<double>(std::max<int64_t>(s.k, 1)) * s.batch;
  const double outputs = static_cast<double>(s.m * s.n * s.batch);
  const double busy = std::min(1.0, static_cast<double>(tiles * splits * t.threads) / c.target);
  const double tile_speed = t.speed;
  const double speed = c.speed_needs_busy ? std::pow(tile_speed, busy) : tile_speed;
  const double partials = splits > 1 ? outputs * splits : 0;
  double cost = (padded + c.partial_flops * partials) /
                    (c.flops_per_us * speed * std::pow(busy, c.occupancy_power)) +
                c.dispatch_us;
  if (splits > 1) cost += c.dispatch_us + c.partial_us * (splits + c.partial_extra) * outputs;
  return cost;
}

bool CoopmatFits(const CoopmatTile& t, const gpu::DeviceInfo& info) {
  return t.threads() <= info.max_workgroup_invocations &&
         t.threads() <= info.max_workgroup_size[0] && t.shared_bytes() <= info.max_shared_memory;
}

bool HasShape(const std::vector<gpu::DeviceInfo::MatrixShape>& shapes,
              const gpu::DeviceInfo::MatrixShape& shape) {
  return std::any_of(shapes.begin(), shapes.end(), [&](const gpu::DeviceInfo::MatrixShape& m) {
    return m.m == shape.m && m.n == shape.n && m.k == shape.k;
  });
}

// The device's shape for `t`, when it reports it and runs `t` at all.
bool CoopmatUsable(const CoopmatTile& t, const gpu::DeviceInfo& info) {
  if (!info.cooperative_matrix_enabled || !RunsTensorCoreSubgroups(info) || !CoopmatFits(t, info)) {
    return false;
  }
  return HasShape(info.coopmat_f16_f32_shapes, t.shape);
}

// Why a coopmat plan of `t` for `s` cannot accumulate in fp16, or nullptr
// when it can: the variants exist for fp16 tensors only; the tensor cores
// must report t's shape with an fp16 result, the emulation needs fp16
// arithmetic.
const char* CoopmatAcc16Refusal(const CoopmatTile& t, const GemmShape& s,
                                const gpu::DeviceInfo& info, bool emulated) {
  if (!s.f16_io) return "fp16 accumulation is built for fp16 tensors only";
  if (s.b_kind == GemmOperandKind::kNhwc) return "the NHWC loader is built with fp32 sums only";
  if (emulated) {
    return info.shader_float16 ? nullptr : "its emulation needs shaderFloat16";
  }
  return HasShape(info.coopmat_f16_f16_shapes, t.shape)
             ? nullptr
             : "the device reports no fp16 x fp16 -> fp16 matrix of the tile's shape";
}

// Sets the plan's accumulation for a shape that asked for fp16 sums.
void SetAccumulation(const GemmShape& s, const gpu::DeviceInfo& info, GemmPlan* plan) {
  if (!s.acc16) return;
  const char* refusal = plan->gemv()           ? "gemv sums in fp32"
                        : plan->coopmat == nullptr ? "the scalar tiles sum in fp32"
                                                   : CoopmatAcc16Refusal(*plan->coopmat, s, info,
                                                                         plan->emulated);
  plan->acc16 = refusal == nullptr;
  plan->fp32_accumulation_reason = refusal;
}

// A tensor-core plan's time on a device with `units` SMs, priced with the
// figures of the extension the kernels run through (`khr`): whole waves of
// resident workgroups, each paying its K steps and a fixed part, plus the
// split-K reduction. Waves, not FLOPs: a 1024 x 768 output in 128 x 256
// tiles is 24 workgroups on 132 SMs, and splitting K fills the rest.
double WaveCost(const GemmShape& s, const CoopmatTile& t, int64_t splits, uint32_t units,
                bool khr) {
  const CoopmatWaveFigures& f = t.wave(khr);
  const int64_t workgroups = CeilDiv(s.m, t.bm) * CeilDiv(s.n, t.bn) * s.batch * splits;
  const int64_t waves = CeilDiv(workgroups, static_cast<int64_t>(units) * f.resident);
  const int64_t steps = CeilDiv(CeilDiv(std::max<int64_t>(s.k, 1), splits), t.bk);
  double cost = static_cast<double>(waves) * (static_cast<double>(steps) * f.step_us + f.wave_us);
  if (splits > 1) {
    const CoopmatSplitFigures& split = khr ? kKhrSplit : kNvSplit;
    const double partials = static_cast<double>(s.m * s.n * s.batch * splits);
    cost += split.split_us + split.partial_us_per_million * partials / 1e6;
  }
  return cost * (1 + kCoopmatSplitMargin * std::log2(static_cast<double>(splits)));
}

// The cheapest tensor-core tile and split, or nullopt when the device has
// none (with acc16_only: none that accumulates in fp16 for `s`).
std::optional<GemmPlan> ChooseCoopmat(const GemmShape& s, const gpu::DeviceInfo& info,
                                      bool acc16_only) {
  const Calibration& c = CalibrationFor(s.b_kind, info, /*coopmat=*/true);
  // The wave model was fitted with a matrix B; Conv's im2col loaders keep
  // the speed-rated model, whose choices matched or beat every pinned plan
  // on the ResNet-50 / MobileNet-V2 shapes swept.
  const bool wave_model = info.compute_units > 0 && s.b_kind == GemmOperandKind::kMatrix;
  const CoopmatTile* best = nullptr;
  int64_t best_splits = 1;
  double best_cost = 0;
  for (const CoopmatTile& t : kCoopmatTiles) {
    if (!CoopmatUsable(t, info)) continue;
    if (acc16_only && CoopmatAcc16Refusal(t, s, info, /*emulated=*/false) != nullptr) continue;
    const Candidate candidate{t.bm, t.bn, t.bk, t.threads(), t.speed};
    for (int64_t splits = 1; splits <= kGemmMaxSplits; splits *= 2) {
      if (splits > 1 && s.k / splits < c.min_chunk) break;
      const double cost =
          wave_model ? WaveCost(s, t, splits, info.compute_units, info.cooperative_matrix_khr)
                     : Cost(s, candidate, splits, c);
      if (best == nullptr || cost < best_cost * 0.999) {
        best = &t;
        best_cost = cost;
        best_splits = splits;
      }
    }
  }
  if (best == nullptr) return std::nullopt;
  GemmPlan plan;
  plan.coopmat = best;
  SetChunk(s.k, best_splits, best->bk, &plan);
  return plan;
}

}  // namespace

double GemmTile::speed(GemmOperandKind kind) const {
  switch (kind) {
    case GemmOperandKind::kMatrix:
      return speed_matrix;
    case GemmOperandKind::kIm2col:
      return speed_im2col;
    case GemmOperandKind::kPointwise:
      return speed_pointwise;
    case GemmOperandKind::kNhwc:
      return 0;  // tensor-core tiles only
  }
  return 0;
}

std::span<const GemmTile> GemmTiles() { return kGemmTiles; }
std::span<const CoopmatTile> CoopmatTiles() { return kCoopmatTiles; }

bool OffersCoopmatTiles(const gpu::DeviceInfo& info) {
  return std::any_of(std::begin(kCoopmatTiles), std::end(kCoopmatTiles),
                     [&](const CoopmatTile& t) { return CoopmatUsable(t, info); });
}

std::string GemmPlan::shader(GemmOperandKind b_kind, bool f16_io, bool b_f16, bool khr) const {
  const char* io = f16_io ? "_f16" : (b_f16 ? "_b16" : "");
  if (gemv()) return absl::StrCat("ops/gemv", io);
  const char* loader = b_kind == GemmOperandKind::kMatrix ? ""
                       : b_kind == GemmOperandKind::kNhwc ? "_nhwc"
                                                          : "_im2col";
  if (coopmat != nullptr) {
    return absl::StrCat("ops/gemm_cm_", coopmat->name, "_", coopmat->shape.m, "x", coopmat->shape.n,
                        "x", coopmat->shape.k, loader, io, acc16 ? "_acc16" : "",
                        emulated ? "_emu" : (khr ? "_khr" : ""));
  }
  return absl::StrCat("ops/gemm_", tile->name, loader, io);
}

std::array<uint32_t, 3> GemvLocal(bool b_trans) {
  // B_TRANS: LX invocations over K for each of LY columns; otherwise LX x 4
  // columns with LY invocations over K.
  return b_trans ? std::array<uint32_t, 3>{32, 4, 1} : std::array<uint32_t, 3>{16, 16, 1};
}

namespace {

// The plan ChooseGemmPlan returns, before its accumulation is set.
absl::StatusOr<GemmPlan> ChooseAnyPlan(const GemmShape& s, const gpu::DeviceInfo& info) {
  if (s.b_kind == GemmOperandKind::kMatrix && s.m <= kGemvMaxM) return ChooseGemv(s, info);
  if (s.b_kind == GemmOperandKind::kNhwc) {
    if (!s.f16_io) {
      return absl::UnimplementedError("the NHWC Conv loader is built for fp16 tensors only");
    }
    if (std::optional<GemmPlan> plan = ChooseCoopmat(s, info, /*acc16_only=*/false)) return *plan;
    return absl::UnimplementedError(
        "the NHWC Conv loader runs on tensor cores, which this device does not offer");
  }
  // fp16 tensors take the tensor cores at either precision: their products
  // are exact in fp32 and the sums are fp32 on both paths (unless fp16 sums
  // were asked for, which only FP16 precision does).
  if (s.fp16 || s.f16_io) {
    if (s.acc16) {
      if (std::optional<GemmPlan> plan = ChooseCoopmat(s, info, /*acc16_only=*/true)) return *plan;
    }
    if (std::optional<GemmPlan> plan = ChooseCoopmat(s, info, /*acc16_only=*/false)) return *plan;
  }
  const Calibration& c = CalibrationFor(s.b_kind, info);
  const GemmTile* best = nullptr;
  int64_t best_splits = 1;
  double best_cost = 0;
  const std::span<const size_t> order = s.b_kind == GemmOperandKind::kMatrix
                                            ? std::span<const size_t>(kMatrixOrder)
                                            : std::span<const size_t>(kIm2colOrder);
  for (size_t index : order) {
    const GemmTile& t = kGemmTiles[index];
    if (t.speed(s.b_kind) <= 0 || !Fits(t, info)) continue;
    const int64_t min_chunk = c.min_chunk > 0 ? c.min_chunk : t.bk;
    const Candidate candidate{t.bm, t.bn, t.bk, t.threads(), t.speed(s.b_kind)};
    for (int64_t splits = 1; splits <= t.max_splits; splits *= 2) {
      if (splits > 1 && s.k / splits < min_chunk) break;
      const double cost = Cost(s, candidate, splits, c);
      if (best == nullptr || cost < best_cost * 0.999) {
        best = &t;
        best_cost = cost;
        best_splits = splits;
      }
    }
  }
  if (best == nullptr) {
    return absl::UnimplementedError("no GEMM tile fits this device's workgroup limits");
  }
  GemmPlan plan;
  plan.tile = best;
  SetChunk(s.k, best_splits, best->bk, &plan);
  return plan;
}

// The plan `spec` names, before its accumulation is set.
absl::StatusOr<GemmPlan> ParsePlan(std::string_view spec, const GemmShape& s,
                                   const gpu::DeviceInfo& info) {
  // A bounded, printable prefix of the (untrusted) spec for messages.
  std::string shown(spec.substr(0, 32));
  for (char& ch : shown) {
    if (ch < 0x20 || ch > 0x7e) ch = '?';
  }
  std::string_view kernel = spec;
  int64_t splits = 1;
  if (const size_t slash = spec.find('/'); slash != std::string_view::npos) {
    kernel = spec.substr(0, slash);
    const std::string_view count = spec.substr(slash + 1);
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), splits);
    if (ec != std::errc() || end != count.data() + count.size() || splits < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(kGemmPlanAttr, " '", shown, "' has a bad split count"));
    }
  }
  splits = std::min(splits, kGemmMaxSplits);
  GemmPlan plan;
  if (kernel == "gemv") {
    if (s.b_kind != GemmOperandKind::kMatrix) {
      return absl::UnimplementedError(absl::StrCat(kGemmPlanAttr, " 'gemv' needs a matrix B"));
    }
    SetChunk(s.k, splits, kGemvChunkStep, &plan);
    return plan;
  }
  if (kernel.substr(0, 2) == "cm") {
    if (s.b_kind == GemmOperandKind::kNhwc && !s.f16_io) {
      return absl::UnimplementedError("the NHWC Conv loader is built for fp16 tensors only");
    }
    for (const CoopmatTile& t : kCoopmatTiles) {
      if (kernel.substr(2) != t.name) continue;
      if (!CoopmatUsable(t, info)) {
        // Emulated only where the device has no tensor cores at all (a
        // device that has them but not this shape gets no plan).
        if (info.cooperative_matrix_enabled || !CoopmatFits(t, info)) continue;
        plan.emulated = true;
      }
      plan.coopmat = &t;
      SetChunk(s.k, splits, t.bk, &plan);
      return plan;
    }
    return absl::UnimplementedError(
        absl::StrCat(kGemmPlanAttr, " '", shown, "': this device has no such tensor-core tile"));
  }
  for (const GemmTile& t : kGemmTiles) {
    if (kernel != t.name) continue;
    if (t.speed(s.b_kind) <= 0 || !Fits(t, info)) {
      return absl::UnimplementedError(absl::StrCat(kGemmPlanAttr, " tile ", t.name,
                                                   " is not built for this operand or does not "
                                                   "fit the device"));
    }
    plan.tile = &t;
    SetChunk(s.k, splits, t.bk, &plan);
    return plan;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(kGemmPlanAttr, " '", shown, "' names no GEMM kernel"));
}

}  // namespace

absl::StatusOr<GemmPlan> ChooseGemmPlan(const GemmShape& s, const gpu::DeviceInfo& info) {
  ASSIGN_OR_RETURN(GemmPlan plan, ChooseAnyPlan(s, info));
  SetAccumulation(s, info, &plan);
  return plan;
}

absl::StatusOr<GemmPlan> ParseGemmPlan(std::string_view spec, const GemmShape& s,
                                       const gpu::DeviceInfo& info) {
  ASSIGN_OR_RETURN(GemmPlan plan, ParsePlan(spec, s, info));
  SetAccumulation(s, info, &plan);
  return plan;
}

}  // namespace vkserve
