// SPDX-License-Identifier: Apache-2.0
// c = a (op) b with numpy broadcasting, fp32 (fp16 in the VKSERVE_F16
// variant). OP: 0 add, 1 sub, 2 mul, 3 div,
// 4 prelu (a < 0 ? a * b : a), 5 pow (C's pow: a negative base takes integer
// exponents, GLSL's pow is undefined there), 6 min, 7 max, 9 fmod (the
// dividend's sign, as C).
// MODE picks how a and b are indexed for output element i:
//   0 general: up to 6 (merged) dims, strides 0 where a side broadcasts;
//   1 same shape; 2 b is a scalar; 3 a is a scalar;
//   4 a is full, b is one vector indexed by (i / inner) % channels
//     (per-channel, bias over the last dim, squeeze-excite scales);
//   5 the same with a and b swapped.
// Element index as in op_util.h GroupsFor.
#version 450
#include "precision.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint OP = 0;
layout(constant_id = 4) const uint MODE = 0;

#if VKSERVE_F16
// The ops/binary_f16 variant (shaders/CMakeLists.txt): fp16 tensors, two per
// 32-bit word, computed in fp32; an invocation writes one whole output word.
layout(binding = 0) readonly buffer A { uint a[]; };
layout(binding = 1) readonly buffer B { uint b[]; };
layout(binding = 2) writeonly buffer C { uint c[]; };
float half_at(uint word, uint i) { return unpackHalf2x16(word)[i % 2u]; }
#else
layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 1) readonly buffer B { float b[]; };
layout(binding = 2) writeonly buffer C { float c[]; };
#endif

layout(push_constant) uniform Params {
  uint n;
  uint rank;       // MODE 0
  uint dims[6];    // MODE 0; MODE 4/5: dims[0] = inner, dims[1] = channels
  uint a_strides[6];
  uint b_strides[6];
} p;

float pow_c(float x, float y) {
  if (y == 0.0 || x == 1.0) return 1.0;  // even for a NaN/infinite other operand, as C
  if (y == 1.0) return x;
  if (y == 2.0) return x * x;            // GELU-tanh's x^3 and variance's x^2: exact and fast
  if (y == 3.0) return x * x * x;
  if (x > 0.0) return pow(x, y);
  if (isnan(x) || isnan(y)) return x + y;
  const bool integer = floor(y) == y;
  if (x == 0.0) {
    if (y > 0.0) return 0.0;             // +0 (C keeps -0 for odd y; the difference is invisible)
    return integer && mod(y, 2.0) == 1.0 && (floatBitsToUint(x) >> 31) != 0u
               ? uintBitsToFloat(0xFF800000u)   // -inf
               : uintBitsToFloat(0x7F800000u);  // +inf
  }
  // Infinite y counts as an even integer: (-1)^inf = 1. -inf takes any power
  // (C: +-inf or +-0 by the sign of y and its parity).
  const bool odd = integer && !isinf(y) && mod(y, 2.0) == 1.0;
  if (!integer && !isinf(x)) return uintBitsToFloat(0x7FC00000u);  // NaN: a fractional power
  if (x == -1.0) return odd ? -1.0 : 1.0;
  const float r = pow(-x, y);
  return odd ? -r : r;
}

float apply(float x, float y) {
  if (OP == 0) return x + y;
  if (OP == 1) return x - y;
  if (OP == 2) return x * y;
  if (OP == 3) return x / y;
  if (OP == 5) return pow_c(x, y);
  // NaN propagates, as numpy's minimum/maximum (GLSL leaves it undefined).
  if (OP == 6) return isnan(x) || isnan(y) ? x + y : min(x, y);
  if (OP == 7) return isnan(x) || isnan(y) ? x + y : max(x, y);
  if (OP == 9) return x - y * trunc(x / y);
  return x < 0.0 ? x * y : x;
}

// The elements of a and b that output element i combines.
uvec2 Operands(uint i) {
  if (MODE == 1) return uvec2(i, i);
  if (MODE == 2) return uvec2(i, 0u);
  if (MODE == 3) return uvec2(0u, i);
  if (MODE == 4) return uvec2(i, (i / p.dims[0]) % p.dims[1]);
  if (MODE == 5) return uvec2((i / p.dims[0]) % p.dims[1], i);
  uint rest = i, ai = 0, bi = 0;
  for (int d = int(p.rank) - 1; d >= 0; --d) {
    const uint coord = rest % p.dims[d];
    rest /= p.dims[d];
    ai += coord * p.a_strides[d];
    bi += coord * p.b_strides[d];
  }
  return uvec2(ai, bi);
}

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
#if VKSERVE_F16
  if (2u * i >= p.n) return;
  vec2 r = vec2(0.0);
  for (uint k = 0; k < 2u; ++k) {
    const uint e = 2u * i + k;
    if (e >= p.n) break;
    const uvec2 at = Operands(e);
    r[k] = apply(half_at(a[at.x / 2u], at.x), half_at(b[at.y / 2u], at.y));
  }
  c[i] = packHalf2x16(r);
#else
  if (i >= p.n) return;
  const uvec2 at = Operands(i);
  c[i] = apply(a[at.x], b[at.y]);
#endif
}
