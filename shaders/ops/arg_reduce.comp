// SPDX-License-Identifier: Apache-2.0
// ArgMax / ArgMin (fp32 in, int64 out) along one axis of a tensor seen as
// [outer, axis, inner]: one invocation per row (o, i) scans the `axis`
// elements at o * axis * inner + k * inner + i and writes the index of the
// first (or, with LAST, the last) maximum (MAX) or minimum. NaN is never
// chosen over a number. Rows are numbered as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool MAX = true;
layout(constant_id = 4) const bool LAST = false;

layout(binding = 0) readonly buffer XBuf { float x[]; };
layout(binding = 1) writeonly buffer YBuf { uvec2 y[]; };  // int64 as (lo, hi)

layout(push_constant) uniform Params {
  uint rows;   // outer * inner
  uint axis;   // elements per row
  uint inner;  // stride between a row's elements
} p;

bool Better(float v, float best) {
  if (LAST) return MAX ? v >= best : v <= best;
  return MAX ? v > best : v < best;
}

void main() {
  const uint row = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (row >= p.rows) return;
  const uint base = (row / p.inner) * p.axis * p.inner + row % p.inner;
  uint best_k = 0;
  float best = x[base];
  for (uint k = 1; k < p.axis; ++k) {
    const float v = x[base + k * p.inner];
    if (Better(v, best) || (isnan(best) && !isnan(v))) {
      best = v;
      best_k = k;
    }
  }
  y[row] = uvec2(best_k, 0u);
}
