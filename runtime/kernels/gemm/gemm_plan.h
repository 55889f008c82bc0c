// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GemmPlan: how the GEMM engine (gemm_engine.h) runs one normalized problem —
// which kernel (a tile variant of shaders/gemm/gemm_tile.glsl, or gemv for
// skinny M) and how many ways K is split. Holds the engine's tile tables
// (read from shaders/gemm/gemm_tiles.def and gemm_coopmat_tiles.def, which
// the shader build makes its variants from) and its one cost model, and parses the
// `vkserve_gemm_plan` node attribute that pins a plan (tests reach every variant with it;
// benchmarks sweep tiles with it). Pure functions over constant tables; thread-safe.
#ifndef VKSERVE_RUNTIME_KERNELS_GEMM_GEMM_PLAN_H_
#define VKSERVE_RUNTIME_KERNELS_GEMM_GEMM_PLAN_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "gpu/device_info.h"

namespace vkserve {

// How the kernel reads operand B (A is always a strided matrix).
enum class GemmOperandKind {
  kMatrix,     // strided [K, N] or [N, K]
  kIm2col,     // Conv's implicit im2col view of an NCHW batch
  kPointwise,  // the same for a 1x1, stride-1, unpadded Conv: X itself
  // The im2col view of a channels-last (NHWC) fp16 batch, K ordered (ky,
  // kx, channel): tensor-core tiles only ("_nhwc_f16"), fp32 sums.
  kNhwc,
};

// One tile variant: BM x BN outputs per workgroup, BK per K step, TM x TN
// outputs per thread. `speed_*` is its relative throughput per padded FLOP
// on a full device for each B loader, measured on an H100 (0: not built for
// that loader).
// The most K splits any plan uses.
inline constexpr int64_t kGemmMaxSplits = 16;

struct GemmTile {
  const char* name;  // "<BM>x<BN>"
  uint32_t bm, bn, bk, tm, tn;
  double speed_matrix, speed_im2col, speed_pointwise;
  int64_t max_splits = kGemmMaxSplits;  // the most K splits the cost model tries
  // Place in the im2col and pointwise loaders' visiting order, 1 first; 0
  // when no im2col variant is built.
  size_t im2col_order = 0;
  uint32_t threads() const { return (bm / tm) * (bn / tn); }
  // Two stages of A and B tiles, rows padded by one vec4.
  uint32_t shared_bytes() const { return 2 * bk * ((bm / 4 + 1) + (bn / 4 + 1)) * 16; }
  double speed(GemmOperandKind kind) const;
};

// The tile table.
std::span<const GemmTile> GemmTiles();

// The wave model's figures for one tensor-core tile through one
// cooperative-matrix extension (devices that report their SMs): workgroups
// resident per SM, and the microseconds a wave of them takes per K step and
// once. Kept per extension: the same kernel compiled through
// VK_NV_cooperative_matrix and through VK_KHR_cooperative_matrix ("_khr")
// differs in speed, and may in registers, on the same GPU.
struct CoopmatWaveFigures {
  uint32_t resident;
  double step_us, wave_us;
};

// A tensor-core variant (shaders/gemm/gemm_coopmat.glsl, through
// VK_NV_cooperative_matrix or, as its "_khr" form, VK_KHR_cooperative_matrix):
// BM x BN outputs per workgroup of warps_m x warps_n 32-wide subgroups, BK
// per step through `stages` shared stages, computed as `shape` fp16 x fp16
// -> fp32 matrices. Only offered where the device reports `shape` and runs
// 32-wide subgroups (by default or on request); a pinned plan runs its
// scalar emulation elsewhere (GemmPlan::emulated).
struct CoopmatTile {
  const char* name;  // "<BM>x<BN>", "w<subgroups>" / "s1" for other warp / stage counts
  uint32_t bm, bn, bk, warps_m, warps_n, stages;
  gpu::DeviceInfo::MatrixShape shape;
  double speed;  // relative throughput per padded FLOP (devices that do not report their SMs)
  CoopmatWaveFigures wave_nv, wave_khr;
  // The figures of the extension the kernels run through
  // (DeviceInfo::cooperative_matrix_khr).
  const CoopmatWaveFigures& wave(bool khr) const { return khr ? wave_khr : wave_nv; }
  uint32_t threads() const { return warps_m * warps_n * 32; }
  // fp16 stages of A and B (rows padded by 8 halves, sized for either
  // orientation); the epilogue stages its sums in the same memory.
  constexpr uint32_t shared_bytes() const {
    const auto stage = [&](uint32_t mn) { return std::max(mn * (bk + 8), bk * (mn + 8)); };
    return stages * (stage(bm) + stage(bn)) * 2;
  }
};
std::span<const CoopmatTile> CoopmatTiles();

// Whether the device runs any tensor-core tile (the cost model may offer
// them: cooperative matrices, 32-wide subgroups by default or on request, a
// tile's fp16 shape).
bool OffersCoopmatTiles(const gpu::DeviceInfo& info);

// The shape a plan is chosen for (after the engine's normalization).
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;  // product of the batch dims (Conv: groups)
  bool b_trans = false;
  GemmOperandKind b_kind = GemmOperandKind::kMatrix;
  bool fp16 = false;    // Precision::kFp16: tensor-core kernels allowed
  bool f16_io = false;  // fp16 tensors (the "_f16" variants; tensor cores allowed too)
  bool b_f16 = false;   // fp32 tensors but an fp16 B (matrix B only; "_b16" variants)
  bool acc16 = false;   // Accumulation::kFp16 asked for (fp16 sums where a kernel offers them)
};

struct GemmPlan {
  const GemmTile* tile = nullptr;        // the scalar core, or
  const CoopmatTile* coopmat = nullptr;  // the tensor-core one; both null: gemv
  uint32_t splits = 1;                   // K splits actually used
  uint32_t k_chunk = 0;                  // K per split (a multiple of the kernel's K step)
  bool emulated = false;                 // coopmat's scalar emulation ("_emu"; pinned only)
  // fp16 accumulators (coopmat with fp16 tensors only: "_acc16"). When the
  // shape asked for them and this is false, `fp32_accumulation_reason`
  // says why the plan sums in fp32 (a static string).
  bool acc16 = false;
  const char* fp32_accumulation_reason = nullptr;
  bool gemv() const { return tile == nullptr && coopmat == nullptr; }
  // The embedded shader: "ops/gemv", "ops/gemm_<BM>x<BN>",
  // "ops/gemm_cm_<name>_<M>x<N>x<K>", each tile with "_im2col" for that
  // B loader ("_nhwc" for the channels-last one); with f16_io the
  // fp16-tensor variant ("_f16"), a coopmat one with "_acc16" when acc16;
  // a coopmat tile with "_emu" when emulated; with b_f16 (fp32 tensors,
  // fp16 matrix B) the "_b16" variant; a coopmat tile run through
  // VK_KHR_cooperative_matrix (`khr`: DeviceInfo::cooperative_matrix_khr)
  // with "_khr" unless emulated.
  std::string shader(GemmOperandKind b_kind, bool f16_io = false, bool b_f16 = false,
                     bool khr = false) const;
};

// gemv.comp: rows of op(A) per workgroup, the largest M it is chosen for,
// and its workgroup shape per B layout.
inline constexpr int64_t kGemvRows = 4;
inline constexpr int64_t kGemvMaxM = 8;
std::array<uint32_t, 3> GemvLocal(bool b_trans);

// The plan minimizing the cost model for `shape` among the kernels that fit
// the device's workgroup and shared-memory limits: with shape.fp16 a
// tensor-core tile when the device offers one (gemv still for M <= 8),
// else the scalar tiles; fp16 tensors (f16_io) likewise at either
// precision. The NHWC loader has tensor-core tiles alone: UNIMPLEMENTED
// without them or without fp16 tensors. With shape.acc16 and fp16 tensors, the tiles whose matrix
// shape the device reports with an fp16 result come first (acc16); any
// other plan sums in fp32 and names the reason. UNIMPLEMENTED when none
// fits.
absl::StatusOr<GemmPlan> ChooseGemmPlan(const GemmShape& shape, const gpu::DeviceInfo& info);

// The node attribute pinning a plan: "gemv", "<BM>x<BN>", "cm<name>"
// (tensor cores where the device has them, else their scalar emulation,
// which only tests use: it is correct but slow; with shape.acc16 the fp16-
// accumulating form where ChooseGemmPlan would allow it, the emulation
// where the device has shaderFloat16), optionally
// followed by "/<splits>" ("64x64/4"). Not "_vkserve_"-prefixed (a name the
// loader reserves for internal attributes): a model may set it, so it is
// untrusted like the rest of the model.
inline constexpr char kGemmPlanAttr[] = "vkserve_gemm_plan";

// The plan `spec` names for `shape`. INVALID_ARGUMENT for a malformed spec,
// UNIMPLEMENTED for a kernel not built for this operand kind or not fitting
// the device. Splits are capped at 16 and at what K allows.
absl::StatusOr<GemmPlan> ParseGemmPlan(std::string_view spec, const GemmShape& shape,
                                       const gpu::DeviceInfo& info);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_GEMM_GEMM_PLAN_H_
