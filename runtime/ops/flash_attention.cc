// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/flash_attention.h"

#include <algorithm>

#include "gpu/status_macros.h"

namespace vkserve {
namespace {

// The largest element offset a strided [B, H, rows, E] view reaches.
int64_t Reach(const std::array<int64_t, 3>& strides, int64_t b, int64_t h, int64_t rows, int64_t e) {
  return (b - 1) * strides[0] + (h - 1) * strides[1] + (rows - 1) * strides[2] + e;
}

}  // namespace

std::optional<FlashAttentionTiling> PlanFlashAttention(const FlashAttentionProblem& p,
                                                       const gpu::DeviceInfo& device) {
  if (p.batch <= 0 || p.heads <= 0 || p.kv_heads <= 0 || p.heads % p.kv_heads != 0 ||
      p.queries <= 0 || p.keys <= 0 || p.head_size <= 0 || p.head_size > kFlashAttentionMaxHeadSize) {
    return std::nullopt;
  }
  constexpr int64_t kLimit = int64_t{1} << 31;
  if (p.offsets[0] + Reach(p.q_strides, p.batch, p.heads, p.queries, p.head_size) >= kLimit ||
      Reach(p.y_strides, p.batch, p.heads, p.queries, p.head_size) >= kLimit ||
      p.offsets[1] + Reach(p.k_strides, p.batch, p.kv_heads, p.keys, p.head_size) >= kLimit ||
      p.offsets[2] + Reach(p.v_strides, p.batch, p.kv_heads, p.keys, p.head_size) >= kLimit ||
      p.keys + p.past >= kLimit || p.queries + p.past >= kLimit) {
    return std::nullopt;
  }
  if (p.mask != FlashAttentionProblem::Mask::kNone) {
    const auto& m = p.mask_strides;
    if ((p.batch - 1) * m[0] + (p.heads - 1) * m[1] + (p.queries - 1) * m[2] + p.keys * m[3] >= kLimit) {
      return std::nullopt;
    }
  }
  FlashAttentionTiling t;
  // Rows: one invocation per query; short sequences (decoding) take a small
  // workgroup rather than idle most of a large one.
  t.rows = p.queries <= 16 ? 16 : p.queries <= 32 ? 32 : 64;
  t.rows = std::min(t.rows, device.max_workgroup_invocations);
  t.rows = std::min(t.rows, device.max_workgroup_size[0]);
  // Keys per tile: K and V tiles in at most half the shared memory (the
  // rest is the compiler's and other workgroups' on the same core).
  const int64_t per_key = 2 * p.head_size * static_cast<int64_t>(sizeof(float));
  t.keys = static_cast<uint32_t>(std::min<int64_t>(32, (device.max_shared_memory / 2) / per_key));
  if (t.rows == 0 || t.keys == 0) return std::nullopt;
  const int64_t tiles = (p.queries + t.rows - 1) / t.rows;
  if (tiles > device.max_workgroup_count[0] || p.heads > device.max_workgroup_count[1] ||
      p.batch > device.max_workgroup_count[2]) {
    return std::nullopt;
  }
  return t;
}

absl::StatusOr<DispatchStep> FlashAttentionStep(KernelContext& ctx, const FlashAttentionProblem& p,
                                                const FlashAttentionTiling& tiling, uint32_t mask_input,
                                                std::array<uint32_t, 3> qkv_inputs) {
  DispatchStep step;
  for (int64_t v : {p.heads, p.kv_heads, p.queries, p.keys, p.past}) step.push.U32(static_cast<uint32_t>(v));
  for (const auto* s : {&p.q_strides, &p.k_strides, &p.v_strides, &p.y_strides}) {
    for (int64_t v : *s) step.push.U32(static_cast<uint32_t>(v));
  }
  for (int64_t v : p.mask_strides) step.push.U32(static_cast<uint32_t>(v));
  step.push.U32(static_cast<uint32_t>(p.mask_len)).F32(p.scale);
  for (int64_t v : p.offsets) step.push.U32(static_cast<uint32_t>(v));
  ASSIGN_OR_RETURN(step.pipeline,
                   ctx.GetPipeline("ops/flash_attention", 5, step.push.size(), {tiling.rows, 1, 1},
                                   {static_cast<uint32_t>(p.head_size), tiling.keys,
                                    static_cast<uint32_t>(p.mask), p.causal ? 1u : 0u,
                                    p.empty_rows_zero ? 1u : 0u}));
  step.groups = {static_cast<uint32_t>((p.queries + tiling.rows - 1) / tiling.rows),
                 static_cast<uint32_t>(p.heads), static_cast<uint32_t>(p.batch)};
  step.bindings = {BufferRef::Input(qkv_inputs[0]), BufferRef::Input(qkv_inputs[1]),
                   BufferRef::Input(qkv_inputs[2]), BufferRef::Input(mask_input), BufferRef::Output(0)};
  return step;
}

}  // namespace vkserve
