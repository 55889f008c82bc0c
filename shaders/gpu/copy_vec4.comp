// SPDX-License-Identifier: Apache-2.0
// dst[i] = src[i] over 16-byte elements: the bandwidth benchmark's shader
// copy. Each invocation moves ELEMENTS_PER_THREAD vectors, strided by the
// grid so neighbouring invocations touch neighbouring addresses. All loads
// are issued before the first store (restrict: src and dst never alias), so
// each invocation keeps ELEMENTS_PER_THREAD 16-byte loads in flight.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint ELEMENTS_PER_THREAD = 4;

layout(binding = 0) restrict readonly buffer Src { uvec4 src[]; };
layout(binding = 1) restrict writeonly buffer Dst { uvec4 dst[]; };

layout(push_constant) uniform Params { uint n; } p;  // in uvec4 elements

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint first = gl_GlobalInvocationID.x;
  uvec4 v[ELEMENTS_PER_THREAD];
  for (uint k = 0; k < ELEMENTS_PER_THREAD; ++k) {
    const uint i = first + k * stride;
    v[k] = uvec4(0);
    if (i < p.n) v[k] = src[i];
  }
  for (uint k = 0; k < ELEMENTS_PER_THREAD; ++k) {
    const uint i = first + k * stride;
    if (i < p.n) dst[i] = v[k];
  }
}
