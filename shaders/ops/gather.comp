// SPDX-License-Identifier: Apache-2.0
// Gather along one axis: data viewed as [outer, axis_dim, inner] (inner in
// units of UNIT_BYTES), indices as a flat list of int32 or int64 (INDEX_64);
// out[outer][j][inner] = data[outer][indices[j]][inner].
// Negative indices count from the end. Out-of-range indices are an error in
// ONNX; vkserve never reads data back mid-run, so they are clamped to
// [0, axis_dim - 1] instead (documented in runtime/ops/indexing/gather.cc).
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint UNIT_BYTES = 4;  // 1, 2, 4, 8 or 16
layout(constant_id = 4) const bool INDEX_64 = true;

layout(binding = 0) readonly buffer Data { uint data[]; };
layout(binding = 0) readonly buffer Data2 { uvec2 data2[]; };
layout(binding = 0) readonly buffer Data4 { uvec4 data4[]; };
layout(binding = 1) readonly buffer Indices { uint indices[]; };
layout(binding = 2) buffer Out { uint dst[]; };
layout(binding = 2) buffer Out2 { uvec2 dst2[]; };
layout(binding = 2) buffer Out4 { uvec4 dst4[]; };

layout(push_constant) uniform Params {
  uint count;        // output units
  uint inner;        // units per gathered row
  uint num_indices;
  uint axis_dim;
} p;

int load_index(uint j) {
  if (!INDEX_64) return int(indices[j]);
  const uint lo = indices[2 * j];
  const uint hi = indices[2 * j + 1];
  // Values that fit in int32 have hi equal to lo's sign extension; anything
  // else is far out of range and only its sign matters.
  if (hi == ((lo & 0x80000000u) != 0u ? 0xffffffffu : 0u)) return int(lo);
  return int(hi) < 0 ? -2147483647 : 2147483647;
}

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  if (i >= p.count) return;
  const uint u = i % p.inner;
  const uint t = i / p.inner;
  const uint j = t % p.num_indices;
  const uint outer = t / p.num_indices;
  int idx = load_index(j);
  if (idx < 0) idx += int(p.axis_dim);
  idx = clamp(idx, 0, int(p.axis_dim) - 1);
  const uint s = (outer * p.axis_dim + uint(idx)) * p.inner + u;
  if (UNIT_BYTES == 16) {
    dst4[i] = data4[s];
  } else if (UNIT_BYTES == 8) {
    dst2[i] = data2[s];
  } else if (UNIT_BYTES == 4) {
    dst[i] = data[s];
  } else {
    const uint per_word = 4 / UNIT_BYTES;
    const uint bits = UNIT_BYTES * 8;
    const uint mask = (1u << bits) - 1u;
    const uint v = (data[s / per_word] >> ((s % per_word) * bits)) & mask;
    const uint shift = (i % per_word) * bits;
    atomicAnd(dst[i / per_word], ~(mask << shift));
    atomicOr(dst[i / per_word], v << shift);
  }
}
