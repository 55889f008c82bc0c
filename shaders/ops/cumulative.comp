// SPDX-License-Identifier: Apache-2.0
// CumSum / CumProd (PROD) along one axis of a tensor seen as
// [outer, axis, inner]: one invocation per row (o, i) walks its `axis`
// elements in order (or from the end, REVERSE), writing the running sum or
// product including (or, EXCLUSIVE, before) each element. KIND 0 is fp32;
// KIND 1 is 32-bit integers and KIND 2 64-bit ones (int64 as (lo, hi) words),
// both in wrapping two's-complement arithmetic, so signed and unsigned alike,
// with no 64-bit shader integers needed. Rows numbered as in op_util.h
// GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool PROD = false;
layout(constant_id = 4) const bool EXCLUSIVE = false;
layout(constant_id = 5) const bool REVERSE = false;
layout(constant_id = 6) const uint KIND = 0;

layout(binding = 0) readonly buffer X { uint x[]; };
layout(binding = 1) writeonly buffer Y { uint y[]; };

layout(push_constant) uniform Params {
  uint rows;
  uint axis;
  uint inner;
} p;

// a + b and a * b modulo 2^64 on (lo, hi) pairs.
uvec2 add64(uvec2 a, uvec2 b) {
  uint carry;
  const uint lo = uaddCarry(a.x, b.x, carry);
  return uvec2(lo, a.y + b.y + carry);
}

uvec2 mul64(uvec2 a, uvec2 b) {
  uint hi, lo;
  umulExtended(a.x, b.x, hi, lo);
  return uvec2(lo, hi + a.x * b.y + a.y * b.x);
}

void main() {
  const uint row = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (row >= p.rows) return;
  const uint base = (row / p.inner) * p.axis * p.inner + row % p.inner;
  float acc = PROD ? 1.0 : 0.0;
  uint iacc = PROD ? 1u : 0u;
  uvec2 lacc = uvec2(PROD ? 1u : 0u, 0u);
  for (uint step = 0; step < p.axis; ++step) {
    const uint k = REVERSE ? p.axis - 1u - step : step;
    const uint at = base + k * p.inner;
    if (KIND == 2) {
      if (EXCLUSIVE) {
        y[2 * at] = lacc.x;
        y[2 * at + 1] = lacc.y;
      }
      const uvec2 v = uvec2(x[2 * at], x[2 * at + 1]);
      lacc = PROD ? mul64(lacc, v) : add64(lacc, v);
      if (!EXCLUSIVE) {
        y[2 * at] = lacc.x;
        y[2 * at + 1] = lacc.y;
      }
    } else if (KIND == 1) {
      if (EXCLUSIVE) y[at] = iacc;
      iacc = PROD ? iacc * x[at] : iacc + x[at];
      if (!EXCLUSIVE) y[at] = iacc;
    } else {
      if (EXCLUSIVE) y[at] = floatBitsToUint(acc);
      const float v = uintBitsToFloat(x[at]);
      acc = PROD ? acc * v : acc + v;
      if (!EXCLUSIVE) y[at] = floatBitsToUint(acc);
    }
  }
}
