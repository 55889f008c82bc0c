// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The unfused attention: a FlashAttentionProblem (runtime/kernels/attention/flash_attention.h)
// lowered onto the one GEMM engine (runtime/kernels/gemm/gemm_engine.h) in three steps,
// with the B*Hq*Sq*Sk fp32 scores in one scratch of the node:
//
//   1. S = scale * Q K'    batched GEMM over (b, kv head, group), the scale as
//                          alpha; Q and K read in place through row strides
//   2. P = softmax(S + mask) in place (shaders/attention/attention_softmax.comp):
//                          the fused kernel's masks, causal offset and
//                          empty-rows mode, fp32 statistics
//   3. Y = P V             batched GEMM, written through Y's strides (or into
//                          scratch and copied, where Y's heads are not one
//                          stride apart: 3-D [B, S, H * E] with B > 1)
//
// The GEMMs take the node's precision, so FP16 models run them on the
// engine's FP16 / tensor-core plans. ChooseAttentionKernel
// (runtime/kernels/attention/attention_choice.h) decides when this beats the fused kernel.
// Pure planning code; the steps are immutable once built.
#ifndef VKSERVE_RUNTIME_KERNELS_ATTENTION_ATTENTION_LOWERING_H_
#define VKSERVE_RUNTIME_KERNELS_ATTENTION_ATTENTION_LOWERING_H_

#include <vector>

#include "absl/status/statusor.h"
#include "runtime/kernels/attention/flash_attention.h"
#include "runtime/kernels/composite_kernel.h"
#include "runtime/op/op.h"

namespace vkserve {

// The node's buffers the attention reads and writes. Q, K and V are bound at
// the problem's offsets (the same buffer three times for packed Q/K/V);
// `mask` is any buffer when the problem has none.
struct AttentionBuffers {
  NodeBuffer q, k, v, mask, y;
};

// The composite steps computing `problem` (which UnfusedAttentionFits
// accepted) for the node of `ctx`; UNIMPLEMENTED where the GEMM engine
// cannot run a product on this device.
absl::StatusOr<std::vector<CompositeStep>> UnfusedAttentionSteps(
    KernelContext& ctx, const FlashAttentionProblem& problem, const AttentionBuffers& buffers);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_ATTENTION_ATTENTION_LOWERING_H_
