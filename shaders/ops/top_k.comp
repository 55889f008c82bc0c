// SPDX-License-Identifier: Apache-2.0
// TopK (fp32 values, int64 indices) along one axis of a tensor seen as
// [outer, axis, inner]: one invocation per row picks, k times, the element
// that comes next in the order "larger value first (smaller, without
// LARGEST), then smaller index" — so equal values keep their index order, as
// onnxruntime and the ONNX reference. O(k * axis) per row. Outputs are
// [outer, k, inner]; rows numbered as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool LARGEST = true;

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) writeonly buffer Values { float values[]; };
layout(binding = 2) writeonly buffer Indices { uvec2 indices[]; };  // int64

layout(push_constant) uniform Params {
  uint rows;
  uint axis;
  uint inner;
  uint k;
} p;

// Whether (v, i) comes before (w, j).
bool Before(float v, uint i, float w, uint j) {
  if (v != w) return LARGEST ? v > w : v < w;
  return i < j;
}

void main() {
  const uint row = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (row >= p.rows) return;
  const uint o = row / p.inner, in_row = row % p.inner;
  const uint base = o * p.axis * p.inner + in_row;
  const uint out_base = o * p.k * p.inner + in_row;
  float prev_v = 0.0;
  uint prev_i = 0xFFFFFFFFu;
  for (uint t = 0; t < p.k; ++t) {
    bool found = false;
    float best_v = 0.0;
    uint best_i = 0;
    for (uint j = 0; j < p.axis; ++j) {
      const float v = x[base + j * p.inner];
      const bool after_prev = prev_i == 0xFFFFFFFFu || Before(prev_v, prev_i, v, j);
      if (after_prev && (!found || Before(v, j, best_v, best_i))) {
        found = true;
        best_v = v;
        best_i = j;
      }
    }
    values[out_base + t * p.inner] = best_v;
    indices[out_base + t * p.inner] = uvec2(best_i, 0u);
    prev_v = best_v;
    prev_i = best_i;
  }
}
