// SPDX-License-Identifier: Apache-2.0
// Col2Im of fp32: input [N, C * K, L] (K = prod(block), L sliding blocks)
// summed into the image [N, C, image...] of up to 4 spatial dims. One
// invocation per output element gathers every (kernel offset, block) pair
// that covers it — no atomics: image coordinate p_d takes kernel offset
// k_d when x_d = p_d + pad_d - k_d * dilation_d is a non-negative multiple
// of stride_d with x_d / stride_d < blocks_d. Index as in op_util.h
// GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
  uint total;     // N * C * prod(image)
  uint nd;        // spatial dims
  uint k;         // prod(block)
  uint l;         // prod(blocks)
  uvec4 image;
  uvec4 block;
  uvec4 dilation;
  uvec4 stride;
  uvec4 pad;      // at the start of each dim
  uvec4 blocks;   // sliding positions per dim
} p;

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.total) return;
  uint pix = 1;
  for (uint d = 0; d < p.nd; ++d) pix *= p.image[d];
  const uint nc = i / pix;  // n * C + c
  uint pos[4];
  uint rem = i % pix;
  for (uint d = p.nd; d-- > 0;) {
    pos[d] = rem % p.image[d];
    rem /= p.image[d];
  }
  float sum = 0.0;
  for (uint kk = 0; kk < p.k; ++kk) {
    uint krem = kk, l = 0, lstride = 1;
    bool hit = true;
    for (uint d = p.nd; d-- > 0 && hit;) {
      const int kd = int(krem % p.block[d]);
      krem /= p.block[d];
      const int xd = int(pos[d]) + int(p.pad[d]) - kd * int(p.dilation[d]);
      if (xd < 0 || xd % int(p.stride[d]) != 0 || uint(xd) / p.stride[d] >= p.blocks[d]) {
        hit = false;
      } else {
        l += (uint(xd) / p.stride[d]) * lstride;
        lstride *= p.blocks[d];
      }
    }
    if (hit) sum += x[(nc * p.k + kk) * p.l + l];
  }
  y[i] = sum;
}
