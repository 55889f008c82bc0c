// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/kernels/attention/flash_attention.h"

#include <algorithm>

#include "base/status_macros.h"

namespace vkserve {
namespace {

// The largest element offset a strided [B, H, rows, E] view reaches.
int64_t Reach(const std::array<int64_t, 3>& strides, int64_t b, int64_t h, int64_t rows,
              int64_t e) {
  return (b - 1) * strides[0] + (h - 1) * strides[1] + (rows - 1) * strides[2] + e;
}

}  // namespace

// Mirrors the shared arrays of shaders/attention/flash_attention.comp: the query
// and key/value tiles (rows of float4s padded to an odd count), P and the
// row reductions.
uint32_t FlashAttentionTiling::shared_bytes(int64_t head_size) const {
  const uint32_t head4 = static_cast<uint32_t>((head_size + 3) / 4) | 1u;
  const uint32_t p4 = (keys / 4) | 1u;
  return 16 * (rows * head4 + keys * head4 + rows * p4) + 4 * rows * column_groups;
}

bool FlashAttentionIndexable(const FlashAttentionProblem& p) {
  if (p.batch <= 0 || p.heads <= 0 || p.kv_heads <= 0 || p.heads % p.kv_heads != 0 ||
      p.queries <= 0 || p.keys <= 0 || p.head_size <= 0 ||
      p.head_size > kFlashAttentionMaxHeadSize) {
    return false;
  }
  constexpr int64_t kLimit = int64_t{1} << 31;
  if (p.offsets[0] + Reach(p.q_strides, p.batch, p.heads, p.queries, p.head_size) >= kLimit ||
      Reach(p.y_strides, p.batch, p.heads, p.queries, p.head_size) >= kLimit ||
      p.offsets[1] + Reach(p.k_strides, p.batch, p.kv_heads, p.keys, p.head_size) >= kLimit ||
      p.offsets[2] + Reach(p.v_strides, p.batch, p.kv_heads, p.keys, p.head_size) >= kLimit ||
      p.keys + p.past >= kLimit || p.queries + p.past >= kLimit) {
    return false;
  }
  if (p.mask != FlashAttentionProblem::Mask::kNone) {
    const auto& m = p.mask_strides;
    if ((p.batch - 1) * m[0] + (p.heads - 1) * m[1] + (p.queries - 1) * m[2] + p.keys * m[3] >=
        kLimit) {
      return false;
    }
  }
  return true;
}

PushConstants FlashAttentionParams(const FlashAttentionProblem& p) {
  PushConstants push;
  for (int64_t v : {p.heads, p.kv_heads, p.queries, p.keys, p.past})
    push.U32(static_cast<uint32_t>(v));
  for (const auto* s : {&p.q_strides, &p.k_strides, &p.v_strides, &p.y_strides}) {
    for (int64_t v : *s) push.U32(static_cast<uint32_t>(v));
  }
  for (int64_t v : p.mask_strides) push.U32(static_cast<uint32_t>(v));
  push.U32(static_cast<uint32_t>(p.mask_len)).F32(p.scale);
  for (int64_t v : p.offsets) push.U32(static_cast<uint32_t>(v));
  return push;
}

std::optional<FlashAttentionTiling> PlanFlashAttention(const FlashAttentionProblem& p,
                                                       const gpu::DeviceInfo& device) {
  if (!FlashAttentionIndexable(p)) return std::nullopt;
  // Row tiles from large to small (rows, keys, rows per invocation, column
  // groups): the first that fits the device and both spreads the grid and
  // wastes at most half its rows on a short sequence, else the smallest that
  // fits. Keys per tile shrink only where shared memory is short.
  constexpr FlashAttentionTiling kTiles[] = {
      {64, 32, 4, 8}, {64, 16, 4, 4}, {32, 32, 4, 8}, {32, 16, 4, 4},
      {16, 32, 2, 8}, {16, 16, 2, 8}, {8, 32, 1, 8},  {8, 16, 1, 8},
  };
  // About one workgroup per compute unit of a large GPU (Vulkan does not
  // report the count); fewer leave most of it idle on short sequences.
  constexpr int64_t kTargetGroups = 96;
  std::optional<FlashAttentionTiling> chosen;
  for (const FlashAttentionTiling& t : kTiles) {
    if (t.invocations() > device.max_workgroup_invocations ||
        t.invocations() > device.max_workgroup_size[0] ||
        t.shared_bytes(p.head_size) > device.max_shared_memory) {
      continue;
    }
    const int64_t tiles = (p.queries + t.rows - 1) / t.rows;
    if (tiles > device.max_workgroup_count[0]) continue;
    if (chosen && chosen->rows == t.rows) continue;  // the larger key tile fit
    chosen = t;
    if (p.batch * p.heads * tiles >= kTargetGroups && t.rows / 2 < p.queries) break;
  }
  if (!chosen || p.heads > device.max_workgroup_count[1] ||
      p.batch > device.max_workgroup_count[2]) {
    return std::nullopt;
  }
  return chosen;
}

absl::StatusOr<DispatchStep> FlashAttentionStep(KernelContext& ctx, const FlashAttentionProblem& p,
                                                const FlashAttentionTiling& tiling,
                                                uint32_t mask_input,
                                                std::array<uint32_t, 3> qkv_inputs) {
  DispatchStep step;
  step.push = FlashAttentionParams(p);
  ASSIGN_OR_RETURN(
      step.pipeline,
      ctx.GetPipeline(
          "ops/flash_attention", 5, step.push.size(), {tiling.invocations(), 1, 1},
          {static_cast<uint32_t>(p.head_size), tiling.rows, tiling.keys, tiling.rows_per_invocation,
           tiling.column_groups, static_cast<uint32_t>(p.mask), p.causal ? 1u : 0u,
           p.empty_rows_zero ? 1u : 0u}));
  step.groups = {static_cast<uint32_t>((p.queries + tiling.rows - 1) / tiling.rows),
                 static_cast<uint32_t>(p.heads), static_cast<uint32_t>(p.batch)};
  step.bindings = {BufferRef::Input(qkv_inputs[0]), BufferRef::Input(qkv_inputs[1]),
                   BufferRef::Input(qkv_inputs[2]), BufferRef::Input(mask_input),
                   BufferRef::Output(0)};
  return step;
}

}  // namespace vkserve
