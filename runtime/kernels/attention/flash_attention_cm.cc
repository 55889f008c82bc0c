// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/kernels/attention/flash_attention_cm.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "runtime/kernels/tensor_cores.h"

namespace vkserve {
namespace {

// From shaders/attention/flash_attention_cm_tiles.def, the table the shader
// build makes its variants from (which says why the rows run in this order).
constexpr CoopmatAttentionTile kTiles[] = {
#define VKSERVE_FLASH_ATTENTION_CM_TILE(ep, warps, bc, rb) {ep, warps, bc, rb, false},
#include "shaders/attention/flash_attention_cm_tiles.def"
#undef VKSERVE_FLASH_ATTENTION_CM_TILE
};

bool Aligned4(const FlashAttentionProblem& p) {
  if (p.head_size % 4 != 0) return false;
  for (const auto* s : {&p.q_strides, &p.k_strides, &p.v_strides}) {
    for (int64_t v : *s) {
      if (v % 4 != 0) return false;
    }
  }
  return std::all_of(p.offsets.begin(), p.offsets.end(), [](int64_t o) { return o % 4 == 0; });
}

}  // namespace

uint32_t CoopmatAttentionTile::shared_bytes(bool emulated) const {
  const uint32_t ld = head + 8;
  const uint32_t tiles = 2 * (rows() * ld + 2 * keys * ld);
  if (registers) return tiles + (emulated ? warps * 16 * 16 * 4 : 0);
  const uint32_t scores = 16 * (keys + 4) * 4;
  const uint32_t p_and_o = 16 * (keys + 8) * 2 + 16 * 20 * 4;
  return tiles + warps * std::max(scores, p_and_o);
}

std::string CoopmatAttentionTile::shader(bool emulated, bool half_io, bool khr) const {
  return absl::StrCat("ops/flash_attention_cm_e", head, "_w", warps, "_c", keys,
                      blocks > 1 ? absl::StrCat("_q", 16 * blocks) : "", registers ? "_regs" : "",
                      half_io ? "_f16" : "", emulated ? "_emu" : (khr ? "_khr" : ""));
}

bool CoopmatAttentionNative(const gpu::DeviceInfo& device) {
  return device.cooperative_matrix_enabled && RunsTensorCoreSubgroups(device) &&
         std::any_of(device.coopmat_f16_f32_shapes.begin(), device.coopmat_f16_f32_shapes.end(),
                     [](const gpu::DeviceInfo::MatrixShape& m) {
                       return m.m == 16 && m.n == 16 && m.k == 16;
                     });
}

std::optional<CoopmatAttentionTile> PlanCoopmatAttention(const FlashAttentionProblem& p,
                                                         const gpu::DeviceInfo& device,
                                                         bool emulated,
                                                         const CoopmatAttentionPin& pin) {
  if (!FlashAttentionIndexable(p) || (!emulated && !CoopmatAttentionNative(device)))
    return std::nullopt;
  const bool registers = pin.softmax == CoopmatSoftmax::kRegisters;
  if (registers && !emulated && !device.coopmat_mma_fragments) return std::nullopt;
  const uint32_t head = p.head_size <= 32 ? 32 : p.head_size <= 64 ? 64 : 128;
  for (CoopmatAttentionTile t : kTiles) {
    t.registers = registers;
    if ((pin.warps != 0 && t.warps != pin.warps) || (pin.keys != 0 && t.keys != pin.keys) ||
        (pin.rows != 0 && 16 * t.blocks != pin.rows) || (t.blocks > 1 && !registers)) {
      continue;
    }
    if (t.head != head || t.threads() > device.max_workgroup_invocations ||
        t.threads() > device.max_workgroup_size[0] ||
        t.shared_bytes(emulated) > device.max_shared_memory) {
      continue;
    }
    if ((p.queries + t.rows() - 1) / t.rows() > device.max_workgroup_count[0] ||
        p.heads > device.max_workgroup_count[1] || p.batch > device.max_workgroup_count[2]) {
      return std::nullopt;
    }
    return t;
  }
  return std::nullopt;
}

absl::StatusOr<DispatchStep> CoopmatAttentionStep(KernelContext& ctx,
                                                  const FlashAttentionProblem& p,
                                                  const CoopmatAttentionTile& tile, bool emulated,
                                                  bool half_io, uint32_t mask_input,
                                                  std::array<uint32_t, 3> qkv_inputs) {
  DispatchStep step;
  step.push = FlashAttentionParams(p);
  const bool khr = ctx.device().info().cooperative_matrix_khr;
  ASSIGN_OR_RETURN(
      step.pipeline,
      ctx.GetPipeline(tile.shader(emulated, half_io, khr), 5, step.push.size(),
                      {tile.threads(), 1, 1},
                      {static_cast<uint32_t>(p.head_size), static_cast<uint32_t>(p.mask),
                       p.causal ? 1u : 0u, p.empty_rows_zero ? 1u : 0u, Aligned4(p) ? 1u : 0u}));
  step.groups = {static_cast<uint32_t>((p.queries + tile.rows() - 1) / tile.rows()),
                 static_cast<uint32_t>(p.heads), static_cast<uint32_t>(p.batch)};
  step.bindings = {BufferRef::Input(qkv_inputs[0]), BufferRef::Input(qkv_inputs[1]),
                   BufferRef::Input(qkv_inputs[2]), BufferRef::Input(mask_input),
                   BufferRef::Output(0)};
  return step;
}

}  // namespace vkserve
