// SPDX-License-Identifier: Apache-2.0
// Finishes a split-K Conv: sums the per-split partial outputs written by
// conv_gemm.comp (PARTIAL) and applies the fused epilogue (bias, residual add
// before or after the activation). One invocation per output element.
#version 450

#include "activation.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const bool HAS_BIAS = false;
layout(constant_id = 4) const uint ACTIVATION = ACT_NONE;
layout(constant_id = 5) const uint RESIDUAL = 0;  // 1: before activation, 2: after

layout(binding = 0) readonly buffer PartialBuf { float partial[]; };
layout(binding = 1) readonly buffer BiasBuf { float bias[]; };
layout(binding = 2) readonly buffer ResBuf { float res[]; };
layout(binding = 3) writeonly buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
  uint total;   // output elements
  uint splits;
  uint out_hw;
  uint c_out;
  float alpha;
  float beta;
} p;

void main() {
  const uint idx =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (idx >= p.total) return;
  float v = 0.0;
  for (uint s = 0; s < p.splits; ++s) v += partial[s * p.total + idx];
  if (HAS_BIAS) v += bias[(idx / p.out_hw) % p.c_out];
  if (RESIDUAL == 1u) v += res[idx];
  v = apply_activation(ACTIVATION, v, p.alpha, p.beta);
  if (RESIDUAL == 2u) v += res[idx];
  y[idx] = v;
}
