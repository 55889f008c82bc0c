// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Which kernel a fused attention runs at one planned shape: the fused
// flash-attention kernel (runtime/kernels/attention/flash_attention.h), its tensor-core
// form at FP16 precision (runtime/kernels/attention/flash_attention_cm.h) or the unfused
// lowering through the GEMM engine (runtime/kernels/attention/attention_lowering.h). Shapes
// are dynamic, so the Attention op asks at plan time, per signature. The rule
// is ChooseAttentionKernel's; the node attribute kAttentionKernelAttr pins
// either path (tests reach both on any device). Pure functions; thread-safe.
#ifndef VKSERVE_RUNTIME_KERNELS_ATTENTION_ATTENTION_CHOICE_H_
#define VKSERVE_RUNTIME_KERNELS_ATTENTION_ATTENTION_CHOICE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "gpu/device_info.h"
#include "runtime/ir/graph.h"
#include "runtime/kernels/attention/flash_attention.h"
#include "runtime/kernels/attention/flash_attention_cm.h"

namespace vkserve {

enum class AttentionKernel { kFused, kUnfused, kCoopmat };

// "fused", "unfused" or "coopmat" on an Attention node pins its kernel at
// every shape; a pinned path that cannot serve a shape fails planning
// (UNIMPLEMENTED). "coopmat" runs the tensor-core kernel's scalar emulation
// on a device without cooperative matrices (tests), at either precision.
// "coopmat:<subgroups>x<keys>" (e.g. "coopmat:2x64") also pins the variant
// of flash_attention_cm_tiles.def, so that benchmarks time each one;
// "coopmat:<subgroups>x<keys>x<rows>" its query rows per subgroup (16 or 32);
// and a suffix ":shared" or ":registers" where its softmax runs
// (CoopmatSoftmax).
inline constexpr char kAttentionKernelAttr[] = "vkserve_attention_kernel";

// The bound on the unfused path's B*H*Sq*Sk fp32 score scratch; past it (or
// past the device's storage-buffer range) the fused kernel, which keeps no
// scores, runs instead.
inline constexpr uint64_t kAttentionScoresBudget = uint64_t{256} << 20;

// The fewest queries the tensor-core kernel is chosen for.
inline constexpr int64_t kCoopmatAttentionMinQueries = 16;

// The work below which the fused kernel wins (see ChooseAttentionKernel).
inline constexpr double kFusedAttentionMaxFlop = 64e6;

// Bytes of the unfused path's score scratch for `problem`.
uint64_t AttentionScoresBytes(const FlashAttentionProblem& problem);

// True when the unfused lowering can run `problem` on `device`: the scores
// fit kAttentionScoresBudget, the storage-buffer range and 32-bit indices,
// and packed Q/K/V offsets are bindable (multiples of the device's storage
// offset alignment).
bool UnfusedAttentionFits(const FlashAttentionProblem& problem, const gpu::DeviceInfo& device);

// The rule, for a problem both paths serve. Source: attention_bench.py on
// the H100 (12 heads, head size 64, fp32, GPU ms, fused vs unfused): s128 b1 0.0325 vs 0.039; s128
// b8 0.205 vs 0.120; s512 b1 0.322 vs 0.117; s512 b8 2.059 vs 0.730; s2048 b1 4.167 vs 0.955; s2048
// b1 causal 2.332 vs 1.191. The fused kernel runs at 1.5-3 TFLOP/s, the GEMM engine's batched
// products at 7-14 but with a fixed cost of three dispatches and the scores' round trip (about
// 0.02-0.03 ms). Equal at F / 2e12 = 0.025e-3 + F / 1e13, F = 4 * B * H * Sq * Sk * E of about 60
// MFLOP: so the fused kernel runs while the work it does (half under a causal mask, which it skips
// tiles of) is at most kFusedAttentionMaxFlop, e.g. s128 b1 (50 MFLOP) and single-token decoding
// steps, and the GEMM engine runs the rest, unless its scores do not fit.
// At FP16 precision (`fp16`), the tensor-core kernel runs wherever the
// device has it natively, a variant fits and there are at least
// kCoopmatAttentionMinQueries queries: it beat both others at every
// measured shape, s128 b1 to s2048 on the H100. Its 16-row fragments would mostly idle on
// decoding steps, which were not measured, so those keep the rule above.
AttentionKernel ChooseAttentionKernel(const FlashAttentionProblem& problem,
                                      const gpu::DeviceInfo& device, bool fp16 = false);

// The kernel `node` pins, nullopt when none; INVALID_ARGUMENT for a value
// other than "fused", "unfused", "coopmat" or
// "coopmat:<subgroups>x<keys>[x<rows>][:shared|:registers]".
absl::StatusOr<std::optional<AttentionKernel>> PinnedAttentionKernel(const Node& node);

// The tensor-core variant `node` pins ("coopmat:2x64", "coopmat:2x64x32:registers");
// all zero and kShared when it pins none.
absl::StatusOr<CoopmatAttentionPin> PinnedCoopmatAttentionTile(const Node& node);

const char* AttentionKernelName(AttentionKernel kernel);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_ATTENTION_ATTENTION_CHOICE_H_
