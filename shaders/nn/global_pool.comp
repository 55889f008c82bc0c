// SPDX-License-Identifier: Apache-2.0
// GlobalAveragePool / GlobalMaxPool (fp32, or fp16 tensors in the "_f16"
// variant, VKSERVE_F16, summed in fp32): one workgroup per (batch, channel) row
// reduces its `hw` contiguous elements with strided loads and a
// shared-memory tree (no assumption on the subgroup size). Rows are numbered
// across gl_WorkGroupID.x and .y (op_util.h GroupsFor with local size 1).
#version 450
#include "precision.glsl"
#if VKSERVE_F16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define GP_T float16_t
#else
#define GP_T float
#endif

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const bool AVERAGE = true;

layout(binding = 0) readonly buffer XBuf { GP_T x[]; };
layout(binding = 1) writeonly buffer YBuf { GP_T y[]; };

layout(push_constant) uniform Params {
  uint hw;    // elements per row
  uint rows;  // batch * channels
} p;

shared float partial[gl_WorkGroupSize.x];  // a power of two

void main() {
  const uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  const uint tid = gl_LocalInvocationID.x;
  const bool in_range = row < p.rows;
  float acc = AVERAGE ? 0.0 : -3.402823466e38;
  if (in_range) {
    const uint base = row * p.hw;
    for (uint i = tid; i < p.hw; i += gl_WorkGroupSize.x) {
      const float v = float(x[base + i]);
      acc = AVERAGE ? acc + v : max(acc, v);
    }
  }
  partial[tid] = acc;
  barrier();
  for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      const float other = partial[tid + s];
      partial[tid] = AVERAGE ? partial[tid] + other : max(partial[tid], other);
    }
    barrier();
  }
  if (tid == 0 && in_range) y[row] = GP_T(AVERAGE ? partial[0] / float(p.hw) : partial[0]);
}
