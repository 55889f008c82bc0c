// SPDX-License-Identifier: Apache-2.0
// ConvTranspose (NCDHW fp32; 2-D as D = 1, 1-D as D = H = 1) as a gather:
// one invocation per output element sums, over the kernel taps whose stride
// phase lands on an input pixel and over the group's input channels,
// X[ci][iz][iy][ix] * W[ci][co][kz][ky][kx], where
// oy + pad_top = iy * SH + ky * DH (likewise for z and x). Plus the optional
// bias.
#version 450
#extension GL_EXT_control_flow_attributes : enable

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const uint KH = 3;
layout(constant_id = 4) const uint KW = 3;
layout(constant_id = 5) const uint SH = 1;
layout(constant_id = 6) const uint SW = 1;
layout(constant_id = 7) const uint DH = 1;
layout(constant_id = 8) const uint DW = 1;
layout(constant_id = 9) const bool HAS_BIAS = false;
layout(constant_id = 10) const uint KD = 1;
layout(constant_id = 11) const uint SD = 1;
layout(constant_id = 12) const uint DD = 1;

layout(binding = 0) readonly buffer XBuf { float x[]; };
layout(binding = 1) readonly buffer WBuf { float w[]; };  // [c_in][cout_g][KD][KH][KW]
layout(binding = 2) readonly buffer BiasBuf { float bias[]; };
layout(binding = 3) writeonly buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
  uint c_in;
  uint in_h;
  uint in_w;
  uint c_out;
  uint out_h;
  uint out_w;
  uint cin_g;
  uint cout_g;
  uint total;  // output elements
  int pad_top;
  int pad_left;
  uint in_d;
  uint out_d;
  int pad_front;
} p;

void main() {
  const uint idx =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (idx >= p.total) return;
  const uint ox = idx % p.out_w;
  uint t = idx / p.out_w;
  const uint oy = t % p.out_h;
  t /= p.out_h;
  const uint oz = t % p.out_d;
  t /= p.out_d;
  const uint co = t % p.c_out;
  const uint batch = t / p.c_out;
  const uint g = co / p.cout_g;
  const uint col = co - g * p.cout_g;
  const uint in_hw = p.in_h * p.in_w;
  const uint in_dhw = p.in_d * in_hw;
  const uint x_base = (batch * p.c_in + g * p.cin_g) * in_dhw;
  const uint w_base = (g * p.cin_g * p.cout_g + col) * (KD * KH * KW);
  const uint w_ci_stride = p.cout_g * KD * KH * KW;

  float sum = HAS_BIAS ? bias[co] : 0.0;
  for (uint kz = 0; kz < KD; ++kz) {
    const int tz = int(oz) + p.pad_front - int(kz * DD);
    if (tz < 0 || tz % int(SD) != 0) continue;
    const uint iz = uint(tz) / SD;
    if (iz >= p.in_d) continue;
    [[unroll]] for (uint ky = 0; ky < KH; ++ky) {
      const int ty = int(oy) + p.pad_top - int(ky * DH);
      if (ty < 0 || ty % int(SH) != 0) continue;
      const uint iy = uint(ty) / SH;
      if (iy >= p.in_h) continue;
      [[unroll]] for (uint kx = 0; kx < KW; ++kx) {
        const int tx = int(ox) + p.pad_left - int(kx * DW);
        if (tx < 0 || tx % int(SW) != 0) continue;
        const uint ix = uint(tx) / SW;
        if (ix >= p.in_w) continue;
        uint xi = x_base + iz * in_hw + iy * p.in_w + ix;
        uint wi = w_base + (kz * KH + ky) * KW + kx;
        for (uint ci = 0; ci < p.cin_g; ++ci) {
          sum += x[xi] * w[wi];
          xi += in_dhw;
          wi += w_ci_stride;
        }
      }
    }
  }
  y[idx] = sum;
}
