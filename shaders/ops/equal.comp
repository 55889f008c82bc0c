// SPDX-License-Identifier: Apache-2.0
// Equal: out[i] = (a[i] == b[i]) as bool with numpy broadcasting; a and b are
// read through element strides over the output's (merged) dims, 0 where
// broadcast. Integers and bools compare as bits (ELEM_BYTES 1, 2, 4 or 8);
// FLOAT_KIND 1 (float32) and 2 (float16) compare as numbers, so -0 == +0 and
// NaN != NaN. Each invocation writes one 32-bit word: four output bools.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint ELEM_BYTES = 4;
layout(constant_id = 4) const uint FLOAT_KIND = 0;

layout(binding = 0) readonly buffer A { uint a[]; };
layout(binding = 1) readonly buffer B { uint b[]; };
layout(binding = 2) writeonly buffer Out { uint dst[]; };

#define MAX_RANK 7

layout(push_constant) uniform Params {
  uint count;
  uint rank;
  uint shape[MAX_RANK];
  int a_stride[MAX_RANK];
  int b_stride[MAX_RANK];
} p;

uvec2 load(uint which, uint i) {
  if (ELEM_BYTES == 8u) {
    return which == 0u ? uvec2(a[2u * i], a[2u * i + 1u]) : uvec2(b[2u * i], b[2u * i + 1u]);
  }
  if (ELEM_BYTES == 4u) return uvec2(which == 0u ? a[i] : b[i], 0u);
  const uint per_word = 4u / ELEM_BYTES;
  const uint bits = ELEM_BYTES * 8u;
  const uint word = which == 0u ? a[i / per_word] : b[i / per_word];
  return uvec2((word >> ((i % per_word) * bits)) & ((1u << bits) - 1u), 0u);
}

bool equal_at(uint i) {
  uint ai = 0u, bi = 0u, rem = i;
  for (uint k = p.rank; k > 0; --k) {
    const uint extent = p.shape[k - 1];
    const uint coord = rem % extent;
    rem /= extent;
    ai += coord * uint(p.a_stride[k - 1]);
    bi += coord * uint(p.b_stride[k - 1]);
  }
  const uvec2 x = load(0u, ai);
  const uvec2 y = load(1u, bi);
  if (FLOAT_KIND == 1u) return uintBitsToFloat(x.x) == uintBitsToFloat(y.x);
  if (FLOAT_KIND == 2u) return unpackHalf2x16(x.x).x == unpackHalf2x16(y.x).x;
  return x == y;
}

void main() {
  const uint w = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  if (w * 4u >= p.count) return;
  uint word = 0u;
  for (uint j = 0u; j < 4u; ++j) {
    const uint i = w * 4u + j;
    if (i < p.count && equal_at(i)) word |= 1u << (j * 8u);
  }
  dst[w] = word;
}
