// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The fused attention kernel (shaders/attention/flash_attention.comp): softmax(
// scale * Q K' + mask) V in one dispatch, flash-attention style (keys and
// values streamed through shared memory, online softmax in fp32, Y written
// once, no [S, T] score tensor). Ops whose attention fits it (the ONNX
// Attention op, runtime/ops/llm/attention.cc) build one step here and keep their
// exact path for the rest. Stateless functions; thread-safe.
#ifndef VKSERVE_RUNTIME_KERNELS_ATTENTION_FLASH_ATTENTION_H_
#define VKSERVE_RUNTIME_KERNELS_ATTENTION_FLASH_ATTENTION_H_

#include <array>
#include <cstdint>
#include <optional>

#include "gpu/device_info.h"
#include "runtime/kernels/dispatch_kernel.h"

namespace vkserve {

// One attention problem over fp32 tensors viewed as [B, H, rows, E] through
// element strides of b, h and the row (E contiguous). K and V share
// `kv_heads`; query head h reads KV head h / (heads / kv_heads).
struct FlashAttentionProblem {
  int64_t batch = 0, heads = 0, kv_heads = 0;
  int64_t queries = 0, keys = 0, head_size = 0;
  int64_t past = 0;  // causal offset: query i sees keys j <= i + past
  std::array<int64_t, 3> q_strides{}, k_strides{}, v_strides{}, y_strides{};
  // Element offsets of Q, K and V in their buffers (packed Q/K/V: one
  // buffer, bound three times).
  std::array<int64_t, 3> offsets{};
  enum class Mask { kNone, kFloat, kBool } mask = Mask::kNone;
  std::array<int64_t, 4> mask_strides{};  // over [B, H, queries, keys]; 0 = broadcast
  int64_t mask_len = 0;                   // the mask's last dim (<= keys; later keys masked)
  bool causal = false;
  bool empty_rows_zero = false;  // a query that sees no key gets 0 (else NaN)
  float scale = 1.0f;
};

// An attribute the attention fusion (runtime/passes/attention_fusion.h) sets on the
// Attention node it writes when it also fused the exporters' NaN guard after
// the softmax: 1 makes a query row that sees no key 0 instead of NaN. Only
// the fused kernel computes that; the Attention op refuses the attribute
// where the kernel does not fit.
inline constexpr char kAttentionEmptyRowsZeroAttr[] = "_vkserve_empty_rows_zero";

// An attribute of 3-D Attention nodes the QKV packing (runtime/passes/qkv_packing.h)
// writes: ints [q_width, k_width, v_width]. Input 0 is then one [B, S, sum]
// tensor holding Q, K and V side by side in each row (inputs 1 and 2 are
// empty); only the fused kernel serves it.
inline constexpr char kAttentionPackedQkvAttr[] = "_vkserve_packed_qkv";

// An attribute of 3-D Attention nodes the sequence-first pass
// (runtime/passes/attention_sequence_first.h) writes: int 1 makes Q, K and V
// (or packed Q/K/V) [S, B, H * E] and the output [S, B, H * Ev], the layout
// of torch.nn.MultiheadAttention's sequence-first projections.
inline constexpr char kAttentionSequenceFirstAttr[] = "_vkserve_sequence_first";

// True when `problem` is well formed (positive sizes, whole KV head groups)
// and every index the fused kernels compute fits 32 bits.
bool FlashAttentionIndexable(const FlashAttentionProblem& problem);

// The push constants both fused kernels take (shaders/ops/
// flash_attention.comp's Params).
PushConstants FlashAttentionParams(const FlashAttentionProblem& problem);

// The kernel's tiling for `problem` on `device`: query rows per workgroup,
// keys per shared-memory tile, rows per invocation and invocations per row
// group (the workgroup is rows / rows_per_invocation x column_groups
// invocations), or nullopt when the kernel does not serve it (head size over
// kMaxHeadSize, indices past 32 bits, grids past the device's limits, too
// little shared memory). Short sequences take smaller row tiles so that the
// grid still spreads over the device.
struct FlashAttentionTiling {
  uint32_t rows = 0, keys = 0;
  uint32_t rows_per_invocation = 0, column_groups = 0;
  uint32_t invocations() const { return rows / rows_per_invocation * column_groups; }
  uint32_t shared_bytes(int64_t head_size) const;
};
inline constexpr int64_t kFlashAttentionMaxHeadSize = 128;
std::optional<FlashAttentionTiling> PlanFlashAttention(const FlashAttentionProblem& problem,
                                                       const gpu::DeviceInfo& device);

// The dispatch for `problem` (which PlanFlashAttention accepted). Bindings,
// relative to the step's own buffers: inputs `qkv_inputs` Q, K and V (the
// same index three times for packed Q/K/V), `mask_input` the mask (any input
// when there is none), output 0 Y.
absl::StatusOr<DispatchStep> FlashAttentionStep(KernelContext& ctx,
                                                const FlashAttentionProblem& problem,
                                                const FlashAttentionTiling& tiling,
                                                uint32_t mask_input,
                                                std::array<uint32_t, 3> qkv_inputs = {0, 1, 2});

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_ATTENTION_FLASH_ATTENTION_H_
