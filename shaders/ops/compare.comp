// SPDX-License-Identifier: Apache-2.0
// Ops with a bool output (runtime/ops/logical/comparison_op.h): out[i] = a[i] OP b[i]
// with numpy broadcasting, or a unary predicate of a[i]. a and b are read
// through element strides over the output's (merged) dims, 0 where
// broadcast. Elements are ELEM_BYTES (1, 2, 4 or 8) wide: integers compare
// signed when SIGNED, bools are 0/1; FLOAT_KIND 1 (float32) and 2 (float16)
// compare as numbers, so -0 == +0 and every comparison with NaN is false.
// Each invocation writes one 32-bit word: four output bools.
//
// OP: 0 ==, 1 >, 2 <, 3 >=, 4 <=, 5 and, 6 or, 7 xor, 8 not, 9 isnan,
//     10 isinf (bit 8: detect +inf, bit 9: detect -inf).
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint ELEM_BYTES = 4;
layout(constant_id = 4) const uint FLOAT_KIND = 0;
layout(constant_id = 5) const uint OP = 0;
layout(constant_id = 6) const bool SIGNED = true;

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

// Element i of operand `which` as (low word, high word); narrower elements
// are sign- or zero-extended into both words.
uvec2 load(uint which, uint i) {
  if (ELEM_BYTES == 8u) {
    return which == 0u ? uvec2(a[2u * i], a[2u * i + 1u]) : uvec2(b[2u * i], b[2u * i + 1u]);
  }
  uint v;
  if (ELEM_BYTES == 4u) {
    v = which == 0u ? a[i] : b[i];
  } else {
    const uint per_word = 4u / ELEM_BYTES;
    const uint bits = ELEM_BYTES * 8u;
    const uint word = which == 0u ? a[i / per_word] : b[i / per_word];
    const int shift = int((i % per_word) * bits);
    v = SIGNED ? uint(bitfieldExtract(int(word), shift, int(bits)))
               : bitfieldExtract(word, shift, int(bits));
  }
  return uvec2(v, SIGNED && int(v) < 0 ? 0xFFFFFFFFu : 0u);
}

float as_float(uvec2 v) {
  return FLOAT_KIND == 1u ? uintBitsToFloat(v.x) : unpackHalf2x16(v.x).x;
}

// -1, 0 or 1 for integers (64-bit, signed or not).
int order(uvec2 x, uvec2 y) {
  if (x.y != y.y) {
    const bool less = SIGNED ? int(x.y) < int(y.y) : x.y < y.y;
    return less ? -1 : 1;
  }
  if (x.x != y.x) return x.x < y.x ? -1 : 1;
  return 0;
}

bool result_at(uint i) {
  uint ai = 0u, bi = 0u, rem = i;
  for (uint k = p.rank; k > 0; --k) {
    const uint extent = p.shape[k - 1];
    const uint coord = rem % extent;
    rem /= extent;
    ai += coord * uint(p.a_stride[k - 1]);
    bi += coord * uint(p.b_stride[k - 1]);
  }
  const uint op = OP & 0xFFu;
  const uvec2 x = load(0u, ai);
  if (op == 8u) return x == uvec2(0u);
  if (op == 9u) return isnan(as_float(x));
  if (op == 10u) {
    const float f = as_float(x);
    return isinf(f) && ((f > 0.0 && (OP & 0x100u) != 0u) || (f < 0.0 && (OP & 0x200u) != 0u));
  }
  const uvec2 y = load(1u, bi);
  if (op >= 5u) {
    const bool bx = x != uvec2(0u), by = y != uvec2(0u);
    if (op == 5u) return bx && by;
    if (op == 6u) return bx || by;
    return bx != by;
  }
  if (FLOAT_KIND != 0u) {
    const float fx = as_float(x), fy = as_float(y);
    if (op == 0u) return fx == fy;
    if (op == 1u) return fx > fy;
    if (op == 2u) return fx < fy;
    if (op == 3u) return fx >= fy;
    return fx <= fy;
  }
  const int o = order(x, y);
  if (op == 0u) return o == 0;
  if (op == 1u) return o > 0;
  if (op == 2u) return o < 0;
  if (op == 3u) return o >= 0;
  return o <= 0;
}

void main() {
  const uint w = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  if (w * 4u >= p.count) return;
  uint word = 0u;
  for (uint j = 0u; j < 4u; ++j) {
    const uint i = w * 4u + j;
    if (i < p.count && result_at(i)) word |= 1u << (j * 8u);
  }
  dst[w] = word;
}
