// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The fragment-layout probe: where the device's cooperative-matrix fragments
// hold their elements. A fragment's layout is the driver's choice, and
// kernels that touch elements one by one (the attention's softmax in
// registers, shaders/attention/flash_attention_cm_regs.glsl) are only right
// for the layout they were written for. ProbeMmaFragments runs
// shaders/gpu/probe_cm_layout.comp once and FragmentsMatchMma decides from
// what it wrote; GpuRuntime records the answer in
// DeviceInfo::coopmat_mma_fragments at start-up. Thread-compatible: the
// probe uses the device's queue like any submission.
#ifndef VKSERVE_RUNTIME_KERNELS_TENSOR_CORE_LAYOUT_H_
#define VKSERVE_RUNTIME_KERNELS_TENSOR_CORE_LAYOUT_H_

#include <cstdint>
#include <span>

#include "absl/status/statusor.h"
#include "gpu/gpu_context.h"

namespace vkserve {

// Floats the probe writes (its layout is in probe_cm_layout.comp).
inline constexpr uint32_t kFragmentProbeFloats = 770;

// Element e of lane L of a 16x16 fragment in NVIDIA's mma.sync m16n8k16
// layout, as the index 16 * row + column.
inline uint32_t MmaFragmentElement(uint32_t lane, uint32_t e) {
  const uint32_t row = lane / 4 + 8 * ((e / 2) % 2);
  const uint32_t col = 2 * (lane % 4) + e % 2 + 8 * (e / 4);
  return 16 * row + col;
}

// True when the probe's output says that both the fp32 accumulator and the
// fp16 A operand hold 8 elements per lane, in the mma.sync layout.
bool FragmentsMatchMma(std::span<const float> probe);

// Runs the probe on `gpu`'s device (its scalar emulation with `emulated`,
// which writes the mma.sync layout on any device) and returns
// FragmentsMatchMma of its output. REQUIRES: a cooperative-matrix extension
// is enabled, unless `emulated`.
absl::StatusOr<bool> ProbeMmaFragments(const GpuContext& gpu, bool emulated = false);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_TENSOR_CORE_LAYOUT_H_
