// SPDX-License-Identifier: Apache-2.0
// dst[i] = src[i] over 16-byte elements: the bandwidth benchmark's shader
// copy. Each invocation moves ELEMENTS_PER_THREAD vectors, strided by the
// grid so neighbouring invocations touch neighbouring addresses.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint ELEMENTS_PER_THREAD = 4;

layout(binding = 0) readonly buffer Src { uvec4 src[]; };
layout(binding = 1) writeonly buffer Dst { uvec4 dst[]; };

layout(push_constant) uniform Params { uint n; } p;  // in uvec4 elements

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint i = gl_GlobalInvocationID.x;
  for (uint k = 0; k < ELEMENTS_PER_THREAD; ++k, i += stride) {
    if (i < p.n) dst[i] = src[i];
  }
}
