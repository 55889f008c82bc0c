// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The fused attention on tensor cores (shaders/attention/flash_attention_cm.glsl):
// the flash-attention problem of runtime/kernels/attention/flash_attention.h with S = Q K'
// and O += P V as fp16 x fp16 -> fp32 cooperative-matrix products, the online
// softmax in fp32. It rounds Q, K, V and P to fp16, so only FP16 precision
// and float16 tensors run it (ChooseAttentionKernel,
// runtime/kernels/attention/attention_choice.h). Its tensors are fp32, or all fp16 (Q, K,
// V, an additive mask and Y: the "_f16" variants). Pure planning code;
// thread-safe.
#ifndef VKSERVE_RUNTIME_KERNELS_ATTENTION_FLASH_ATTENTION_CM_H_
#define VKSERVE_RUNTIME_KERNELS_ATTENTION_FLASH_ATTENTION_CM_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "gpu/device_info.h"
#include "runtime/kernels/attention/flash_attention.h"
#include "runtime/kernels/dispatch_kernel.h"

namespace vkserve {

// One compiled variant: the head padded to `head` (a multiple of 16), `warps`
// 32-wide subgroups of `blocks` blocks of 16 query rows each, `keys` keys per
// shared tile, and where the online softmax runs: through shared memory
// (flash_attention_cm.glsl), or in registers (`registers`,
// flash_attention_cm_regs.glsl), which needs the fragment layout that
// DeviceInfo::coopmat_mma_fragments reports.
struct CoopmatAttentionTile {
  uint32_t head, warps, keys, blocks;
  bool registers = false;  // always with blocks > 1
  uint32_t threads() const { return 32 * warps; }
  uint32_t rows() const { return 16 * blocks * warps; }
  // Mirrors the shader's shared arrays: the Q, K and V tiles (fp16 rows
  // padded by 8 halves), and each subgroup's region (its fp32 scores, or P
  // and a staged 16 x 16 block of O), or with `registers` none but, in the
  // emulation, a staged 16 x 16 fp32 operand.
  uint32_t shared_bytes(bool emulated = false) const;
  // `half_io`: the variant for fp16 tensors; `khr`: its
  // VK_KHR_cooperative_matrix form (DeviceInfo::cooperative_matrix_khr;
  // "_khr", never with `emulated`).
  std::string shader(bool emulated, bool half_io, bool khr = false) const;
};

// Where a plan's softmax runs. Plans take kShared, which serves any fragment
// layout; kRegisters is a candidate that pins reach, for benchmarks to time
// against it (attention_bench.py), and runs natively only where
// DeviceInfo::coopmat_mma_fragments holds.
enum class CoopmatSoftmax { kShared, kRegisters };

// True when `device` runs the tensor-core kernel itself: cooperative matrices enabled, 32-wide
// subgroups (by default or on request) and the 16x16x16 fp16/fp32 shape.
bool CoopmatAttentionNative(const gpu::DeviceInfo& device);

// The variant for `problem` on `device`, or nullopt when none serves it
// (FlashAttentionIndexable fails, or no variant fits the device's shared
// memory and workgroup limits). `emulated` plans the scalar emulation, which
// any device runs (tests pin it); otherwise the device must be native.
// A pin (benchmarks and tests) takes only the variants of its `warps`
// subgroups, `keys` keys per tile and `rows` query rows per subgroup (each
// where not 0), with its softmax; a native plan in registers needs
// coopmat_mma_fragments.
struct CoopmatAttentionPin {
  uint32_t warps = 0, keys = 0, rows = 0;
  CoopmatSoftmax softmax = CoopmatSoftmax::kShared;
};
std::optional<CoopmatAttentionTile> PlanCoopmatAttention(const FlashAttentionProblem& problem,
                                                         const gpu::DeviceInfo& device,
                                                         bool emulated,
                                                         const CoopmatAttentionPin& pin = {});

// The dispatch for `problem` (which PlanCoopmatAttention accepted), with the
// bindings of FlashAttentionStep; `half_io`: its tensors are fp16.
absl::StatusOr<DispatchStep> CoopmatAttentionStep(KernelContext& ctx,
                                                  const FlashAttentionProblem& problem,
                                                  const CoopmatAttentionTile& tile, bool emulated,
                                                  bool half_io, uint32_t mask_input,
                                                  std::array<uint32_t, 3> qkv_inputs = {0, 1, 2});

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_ATTENTION_FLASH_ATTENTION_CM_H_
