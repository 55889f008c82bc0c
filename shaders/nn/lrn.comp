// SPDX-License-Identifier: Apache-2.0
// LRN (fp32) on [N, C, spatial]: one invocation per element,
//   y = x / (bias + alpha / size * sum of x^2 over channels
//            [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)]) ^ beta
// Element index as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
  uint n;
  uint channels;
  uint spatial;
  uint size;
  float alpha;
  float beta;
  float bias;
} p;

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.n) return;
  const int c = int((i / p.spatial) % p.channels);
  const uint base = i - uint(c) * p.spatial;
  const int lo = max(c - int((p.size - 1u) / 2u), 0);
  const int hi = min(c + int(p.size / 2u), int(p.channels) - 1);
  float sum = 0.0;
  for (int k = lo; k <= hi; ++k) {
    const float v = x[base + uint(k) * p.spatial];
    sum += v * v;
  }
  y[i] = x[i] / pow(p.bias + p.alpha / float(p.size) * sum, p.beta);
}
