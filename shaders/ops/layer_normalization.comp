// SPDX-License-Identifier: Apache-2.0
// LayerNormalization (fp32): one workgroup per row of `size` contiguous
// elements. Two passes over the row for the statistics — the mean, then the
// mean of squared deviations (not E[x^2] - E[x]^2, which cancels when
// |mean| >> stddev) — both relative to the row's first element; a third
// pass writes y = (x - mean) * inv_std * scale[k % scale_n] + bias[k % bias_n].
// Partial sums are combined in a shared-memory tree; gl_WorkGroupSize.x must
// be a power of two. Rows run across gl_WorkGroupID.x and .y.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool HAS_BIAS = false;
layout(constant_id = 4) const bool WRITE_MEAN = false;
layout(constant_id = 5) const bool WRITE_INV_STD = false;

layout(binding = 0) readonly buffer XBuf { float x[]; };
layout(binding = 1) readonly buffer ScaleBuf { float scale[]; };
layout(binding = 2) readonly buffer BiasBuf { float bias[]; };
layout(binding = 3) writeonly buffer YBuf { float y[]; };
layout(binding = 4) writeonly buffer MeanBuf { float mean_out[]; };
layout(binding = 5) writeonly buffer InvStdBuf { float inv_std_out[]; };

layout(push_constant) uniform Params {
  uint rows;
  uint size;     // elements per row
  uint scale_n;  // scale repeats with this period along the row
  uint bias_n;
  float epsilon;
} p;

shared float partial[gl_WorkGroupSize.x];

// The workgroup's sum of `v`; every invocation gets it.
float WorkgroupSum(float v) {
  const uint tid = gl_LocalInvocationID.x;
  partial[tid] = v;
  barrier();
  for (uint half_size = gl_WorkGroupSize.x / 2; half_size > 0; half_size >>= 1) {
    if (tid < half_size) partial[tid] += partial[tid + half_size];
    barrier();
  }
  const float total = partial[0];
  barrier();  // partial is reused by the next sum
  return total;
}

void main() {
  const uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (row >= p.rows) return;  // uniform over the workgroup
  const uint tid = gl_LocalInvocationID.x;
  const uint base = row * p.size;
  const float n = float(p.size);

  // Everything is computed relative to the row's first element: x - shift is
  // exact for the values close to it, so a large common offset (|mean| >>
  // stddev) costs no precision, where mean = sum(x) / n would round to the
  // offset's ulp.
  const float shift = x[base];
  float s = 0.0;
  for (uint k = tid; k < p.size; k += gl_WorkGroupSize.x) s += x[base + k] - shift;
  const float offset = WorkgroupSum(s) / n;  // mean - shift

  float d2 = 0.0;
  for (uint k = tid; k < p.size; k += gl_WorkGroupSize.x) {
    const float d = (x[base + k] - shift) - offset;
    d2 += d * d;
  }
  const float inv_std = inversesqrt(WorkgroupSum(d2) / n + p.epsilon);

  for (uint k = tid; k < p.size; k += gl_WorkGroupSize.x) {
    float v = ((x[base + k] - shift) - offset) * inv_std * scale[k % p.scale_n];
    if (HAS_BIAS) v += bias[k % p.bias_n];
    y[base + k] = v;
  }
  if (tid == 0) {
    if (WRITE_MEAN) mean_out[row] = shift + offset;
    if (WRITE_INV_STD) inv_std_out[row] = inv_std;
  }
}
