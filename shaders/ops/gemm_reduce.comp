// SPDX-License-Identifier: Apache-2.0
// Finishes a split-K Gemm/MatMul: sums the per-split partial outputs that
// matmul_tile_* / gemv wrote with PARTIAL (binding 0, [splits][batch][M][N])
// and applies the fused epilogue into Y. One invocation per output element,
// or per 4 when VEC_OUT. Interface in matmul_common.glsl (binding 1 unused).
#version 450

#include "matmul_common.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

void main() {
  const uint i = gl_GlobalInvocationID.x +
                 gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint total = p.batch * p.m * p.n;
  if (VEC_OUT) {
    const uint idx = i * 4;
    if (idx >= total) return;
    vec4 v = vec4(0.0);
    for (uint s = 0; s < p.splits; ++s) v += a4[(s * total + idx) / 4];
    const uint col = idx % p.n;
    const uint row = (idx / p.n) % p.m;
    y4[idx / 4] = finish4(v, row, col, idx);
  } else {
    if (i >= total) return;
    float v = 0.0;
    for (uint s = 0; s < p.splits; ++s) v += a[s * total + i];
    y[i] = finish(v, (i / p.n) % p.m, i % p.n, i);
  }
}
