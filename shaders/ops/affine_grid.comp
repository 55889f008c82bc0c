// SPDX-License-Identifier: Apache-2.0
// AffineGrid (fp32): for every output point (n, [d,] h, w) the normalized
// base coordinate (x, y[, z]) in [-1, 1] (pixel centers, or corners with
// ALIGN) multiplied by theta[n] ([2, 3], or [3, 4] in 3-D). One invocation
// per point, writing its DIMS coordinates; index as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint DIMS = 2;
layout(constant_id = 4) const bool ALIGN = false;

layout(binding = 0) readonly buffer Theta { float theta[]; };
layout(binding = 1) writeonly buffer Grid { float grid[]; };

layout(push_constant) uniform Params {
  uint points;
  uint d, h, w;  // d is 1 in 2-D
} p;

float Base(uint i, uint size) {
  if (ALIGN) return size > 1u ? -1.0 + 2.0 * float(i) / float(size - 1u) : 0.0;
  return (2.0 * float(i) + 1.0) / float(size) - 1.0;
}

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.points) return;
  const uint x = i % p.w;
  const uint y = (i / p.w) % p.h;
  const uint z = (i / (p.w * p.h)) % p.d;
  const uint n = i / (p.w * p.h * p.d);
  const vec4 base = vec4(Base(x, p.w), Base(y, p.h), DIMS == 3u ? Base(z, p.d) : 1.0, 1.0);
  const uint cols = DIMS + 1u;
  const uint t = n * DIMS * cols;
  for (uint r = 0; r < DIMS; ++r) {
    float acc = 0.0;
    for (uint c = 0; c < cols; ++c) acc += theta[t + r * cols + c] * base[c];
    grid[i * DIMS + r] = acc;
  }
}
