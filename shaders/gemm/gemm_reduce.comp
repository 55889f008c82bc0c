// SPDX-License-Identifier: Apache-2.0
// The GEMM engine's split-K pass: sums the dense partial products that
// gemm_tile / gemv variants wrote with PARTIAL (binding 0,
// [splits][batch][M][N], fp32 in every variant) and applies the epilogue
// into Y's view. One
// invocation per product element, or per 4 consecutive columns when VEC_OUT.
// Interface in gemm_interface.glsl (binding 1 unused).
#version 450

#include "gemm_interface.glsl"
#include "gemm_epilogue.glsl"

layout(binding = 0) readonly buffer PartIn { float part_in[]; };
layout(binding = 0) readonly buffer PartIn4 { vec4 part_in4[]; };

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

void main() {
  const uint i = gl_GlobalInvocationID.x +
                 gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint total = p.batch * p.m * p.n;
  if (VEC_OUT) {
    const uint first = i * 4;
    if (first >= total) return;
    vec4 v = vec4(0.0);
    for (uint s = 0; s < p.splits; ++s) v += part_in4[(s * total + first) / 4];
    const uint col = first % p.n;
    const uint row = (first / p.n) % p.m;
    const uint z = first / (p.n * p.m);
    const uint idx = output_index(z, row, col);
    y4[idx / 4] = IO_T4(finish4(v, z, row, col, idx));
  } else {
    if (i >= total) return;
    float v = 0.0;
    for (uint s = 0; s < p.splits; ++s) v += part_in[s * total + i];
    const uint col = i % p.n;
    const uint row = (i / p.n) % p.m;
    const uint z = i / (p.n * p.m);
    const uint idx = output_index(z, row, col);
    y[idx] = IO_T(finish(v, z, row, col, idx));
  }
}
