// SPDX-License-Identifier: Apache-2.0
// CumSum / CumProd (PROD) of fp32, or of 32-bit integers (INT32: wrapping
// two's-complement arithmetic, so int32 and uint32 alike) along one axis of a
// tensor seen as
// [outer, axis, inner]: one invocation per row (o, i) walks its `axis`
// elements in order (or from the end, REVERSE), writing the running sum or
// product including (or, EXCLUSIVE, before) each element. Rows numbered as
// in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool PROD = false;
layout(constant_id = 4) const bool EXCLUSIVE = false;
layout(constant_id = 5) const bool REVERSE = false;
layout(constant_id = 6) const bool INT32 = false;

layout(binding = 0) readonly buffer X { uint x[]; };
layout(binding = 1) writeonly buffer Y { uint y[]; };

layout(push_constant) uniform Params {
  uint rows;
  uint axis;
  uint inner;
} p;

void main() {
  const uint row = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (row >= p.rows) return;
  const uint base = (row / p.inner) * p.axis * p.inner + row % p.inner;
  float acc = PROD ? 1.0 : 0.0;
  uint iacc = PROD ? 1u : 0u;
  for (uint step = 0; step < p.axis; ++step) {
    const uint k = REVERSE ? p.axis - 1u - step : step;
    const uint at = base + k * p.inner;
    if (INT32) {
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
