// SPDX-License-Identifier: Apache-2.0
// CumSum / CumProd (fp32, PROD) along one axis of a tensor seen as
// [outer, axis, inner]: one invocation per row (o, i) walks its `axis`
// elements in order (or from the end, REVERSE), writing the running sum or
// product including (or, EXCLUSIVE, before) each element. Rows numbered as
// in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool PROD = false;
layout(constant_id = 4) const bool EXCLUSIVE = false;
layout(constant_id = 5) const bool REVERSE = false;

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) writeonly buffer Y { float y[]; };

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
  for (uint step = 0; step < p.axis; ++step) {
    const uint k = REVERSE ? p.axis - 1u - step : step;
    const uint at = base + k * p.inner;
    const float v = x[at];
    if (EXCLUSIVE) y[at] = acc;
    acc = PROD ? acc * v : acc + v;
    if (!EXCLUSIVE) y[at] = acc;
  }
}
