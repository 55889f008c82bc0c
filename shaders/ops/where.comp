// SPDX-License-Identifier: Apache-2.0
// Where: out[i] = cond[i] ? x[i] : y[i] with numpy broadcasting. The three
// inputs are read through element strides over the output's (merged) dims,
// 0 where broadcast. cond is bool (one byte per element); x, y and out are
// any type of ELEM_BYTES (1, 2, 4 or 8) bytes, moved as bits. Outputs under
// 4 bytes are written with atomics on their 32-bit word.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint ELEM_BYTES = 4;

layout(binding = 0) readonly buffer Cond { uint cond[]; };
layout(binding = 1) readonly buffer X { uint x[]; };
layout(binding = 2) readonly buffer Y { uint y[]; };
layout(binding = 3) buffer Out { uint dst[]; };

#define MAX_RANK 7

layout(push_constant) uniform Params {
  uint count;
  uint rank;
  uint shape[MAX_RANK];
  int cond_stride[MAX_RANK];
  int x_stride[MAX_RANK];
  int y_stride[MAX_RANK];
} p;

uint load_byte(uint i) { return (cond[i / 4u] >> ((i % 4u) * 8u)) & 0xffu; }

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  if (i >= p.count) return;
  uint c = 0u, xi = 0u, yi = 0u, rem = i;
  for (uint k = p.rank; k > 0; --k) {
    const uint extent = p.shape[k - 1];
    const uint coord = rem % extent;
    rem /= extent;
    c += coord * uint(p.cond_stride[k - 1]);
    xi += coord * uint(p.x_stride[k - 1]);
    yi += coord * uint(p.y_stride[k - 1]);
  }
  const bool pick_x = load_byte(c) != 0u;
  if (ELEM_BYTES == 8u) {
    dst[2u * i] = pick_x ? x[2u * xi] : y[2u * yi];
    dst[2u * i + 1u] = pick_x ? x[2u * xi + 1u] : y[2u * yi + 1u];
  } else if (ELEM_BYTES == 4u) {
    dst[i] = pick_x ? x[xi] : y[yi];
  } else {
    const uint per_word = 4u / ELEM_BYTES;
    const uint bits = ELEM_BYTES * 8u;
    const uint mask = (1u << bits) - 1u;
    const uint s = pick_x ? xi : yi;
    const uint word = pick_x ? x[s / per_word] : y[s / per_word];
    const uint v = (word >> ((s % per_word) * bits)) & mask;
    const uint shift = (i % per_word) * bits;
    atomicAnd(dst[i / per_word], ~(mask << shift));
    atomicOr(dst[i / per_word], v << shift);
  }
}
