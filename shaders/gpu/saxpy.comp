// SPDX-License-Identifier: Apache-2.0
// y[i] = a * x[i] + y[i] for i < n. The GPU layer's conformance kernel: simple
// enough that every element can be checked exactly on the host.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) buffer Y { float y[]; };

layout(push_constant) uniform Params {
  uint n;
  float a;
} p;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < p.n) y[i] = p.a * x[i] + y[i];
}
