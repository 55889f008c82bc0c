// SPDX-License-Identifier: Apache-2.0
// fp32 FMA throughput: each invocation runs 8 independent vec4 FMA chains
// (ITERATIONS x 8 x 4 FMAs, 2 FLOP each) and stores one value so the compiler
// cannot drop the work.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint ITERATIONS = 1024;

layout(binding = 0) writeonly buffer Out { float result[]; };

layout(push_constant) uniform Params { float a; float b; } p;

void main() {
  const float seed = float(gl_GlobalInvocationID.x) * 1e-7;
  vec4 c0 = vec4(seed), c1 = c0 + 1.0, c2 = c0 + 2.0, c3 = c0 + 3.0;
  vec4 c4 = c0 + 4.0, c5 = c0 + 5.0, c6 = c0 + 6.0, c7 = c0 + 7.0;
  const vec4 a = vec4(p.a), b = vec4(p.b);
  for (uint i = 0; i < ITERATIONS; ++i) {
    c0 = fma(c0, a, b); c1 = fma(c1, a, b); c2 = fma(c2, a, b); c3 = fma(c3, a, b);
    c4 = fma(c4, a, b); c5 = fma(c5, a, b); c6 = fma(c6, a, b); c7 = fma(c7, a, b);
  }
  const vec4 s = c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7;
  result[gl_GlobalInvocationID.x] = s.x + s.y + s.z + s.w;
}
