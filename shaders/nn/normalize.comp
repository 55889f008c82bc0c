// SPDX-License-Identifier: Apache-2.0
// Normalization over a set of elements (fp32): InstanceNormalization,
// GroupNormalization, MeanVarianceNormalization and LpNormalization. The
// input is seen through strides as [kept..., reduced...] as in reduce.comp
// (up to 3 kept and 6 reduced dims); one workgroup (a power of two) per kept
// index o normalizes its `reduced` elements in place in the output:
//   MODE 0: y = (x - mean) / sqrt(var + eps) [* scale[ch] + bias[ch]]
//           (mean, then the variance of x - mean: two passes, no cancellation)
//   MODE 1: y = x / max(||x||_P, tiny), P 1 or 2
// ch, the affine entry of an element at offset off, is
// (off / channel_stride) % channels / channels_per_entry.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint MODE = 0;
layout(constant_id = 4) const bool AFFINE = false;
layout(constant_id = 5) const uint P = 2;

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) readonly buffer Scale { float scale[]; };
layout(binding = 2) readonly buffer Bias { float bias[]; };
layout(binding = 3) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
  uint outputs;   // kept indices
  uint reduced;   // elements per kept index
  uint kept_rank;
  uint reduced_rank;
  uint kept_dims[3];
  uint kept_strides[3];
  uint reduced_dims[6];
  uint reduced_strides[6];
  float eps;
  uint channel_stride;
  uint channels;
  uint per_entry;
} p;

shared float partial[gl_WorkGroupSize.x];

#include "strided_offsets.glsl"

// The workgroup's sum of v; every invocation gets it.
float GroupSum(float v) {
  const uint tid = gl_LocalInvocationID.x;
  partial[tid] = v;
  barrier();
  for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
    if (tid < s) partial[tid] += partial[tid + s];
    barrier();
  }
  const float total = partial[0];
  barrier();
  return total;
}

void main() {
  const uint o = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (o >= p.outputs) return;  // uniform over the workgroup
  const uint tid = gl_LocalInvocationID.x;
  const uint base = KeptOffset(o);
  float shift = 0.0, factor = 1.0;
  if (MODE == 0u) {
    float acc = 0.0;
    for (uint r = tid; r < p.reduced; r += gl_WorkGroupSize.x) acc += x[base + ReducedOffset(r)];
    shift = GroupSum(acc) / float(p.reduced);
    acc = 0.0;
    for (uint r = tid; r < p.reduced; r += gl_WorkGroupSize.x) {
      const float d = x[base + ReducedOffset(r)] - shift;
      acc += d * d;
    }
    factor = inversesqrt(GroupSum(acc) / float(p.reduced) + p.eps);
  } else {
    float acc = 0.0;
    for (uint r = tid; r < p.reduced; r += gl_WorkGroupSize.x) {
      const float v = x[base + ReducedOffset(r)];
      acc += P == 1u ? abs(v) : v * v;
    }
    const float norm = P == 1u ? GroupSum(acc) : sqrt(GroupSum(acc));
    factor = norm > 0.0 ? 1.0 / norm : 0.0;
  }
  for (uint r = tid; r < p.reduced; r += gl_WorkGroupSize.x) {
    const uint at = base + ReducedOffset(r);
    float v = (x[at] - shift) * factor;
    if (AFFINE) {
      const uint ch = (at / p.channel_stride) % p.channels / p.per_entry;
      v = v * scale[ch] + bias[ch];
    }
    y[at] = v;
  }
}
