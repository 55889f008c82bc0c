// SPDX-License-Identifier: Apache-2.0
// 2-D DeformConv of fp32: every kernel tap of output (n, oc, y, x) samples
// X bilinearly at its grid position moved by `offset` (per offset group:
// (dh, dw) pairs per tap), times `mask` (HAS_MASK) and the weight, summed
// over the group's input channels and taps, plus the bias (HAS_BIAS).
// Samples outside (-1, H) x (-1, W) and corners outside the image read 0.
// One invocation per output element. Index as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool HAS_BIAS = false;
layout(constant_id = 4) const bool HAS_MASK = false;

layout(binding = 0) readonly buffer X { float x[]; };        // [N, C, H, W]
layout(binding = 1) readonly buffer Wt { float wt[]; };      // [OC, C / group, KH, KW]
layout(binding = 2) readonly buffer Off { float off[]; };    // [N, OG * 2 * KH * KW, OH, OW]
layout(binding = 3) readonly buffer Bias { float bias[]; };  // [OC]
layout(binding = 4) readonly buffer Mask { float mask[]; };  // [N, OG * KH * KW, OH, OW]
layout(binding = 5) writeonly buffer Y { float y[]; };       // [N, OC, OH, OW]

layout(push_constant) uniform Params {
  uint total;
  uint c, h, w;
  uint oc, oh, ow;
  uint kh, kw;
  uint group, offset_group;
  int stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
} p;

float pixel(uint plane, int yy, int xx) {
  if (yy < 0 || xx < 0 || yy >= int(p.h) || xx >= int(p.w)) return 0.0;
  return x[plane + uint(yy) * p.w + uint(xx)];
}

float bilinear(uint plane, float yy, float xx) {
  if (yy <= -1.0 || yy >= float(p.h) || xx <= -1.0 || xx >= float(p.w)) return 0.0;
  const float fy = floor(yy), fx = floor(xx);
  const int y0 = int(fy), x0 = int(fx);
  const float ly = yy - fy, lx = xx - fx, hy = 1.0 - ly, hx = 1.0 - lx;
  return hy * hx * pixel(plane, y0, x0) + hy * lx * pixel(plane, y0, x0 + 1) +
         ly * hx * pixel(plane, y0 + 1, x0) + ly * lx * pixel(plane, y0 + 1, x0 + 1);
}

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.total) return;
  const uint ox = i % p.ow, oy = (i / p.ow) % p.oh;
  const uint o = (i / (p.ow * p.oh)) % p.oc, n = i / (p.ow * p.oh * p.oc);
  const uint cg = p.c / p.group, g = o / (p.oc / p.group);
  const uint c_per_og = p.c / p.offset_group;
  const uint taps = p.kh * p.kw, plane_out = p.oh * p.ow, at = oy * p.ow + ox;
  float sum = HAS_BIAS ? bias[o] : 0.0;
  for (uint ci = 0; ci < cg; ++ci) {
    const uint c = g * cg + ci;
    const uint og = c / c_per_og;
    const uint plane = (n * p.c + c) * p.h * p.w;
    for (uint ki = 0; ki < p.kh; ++ki) {
      for (uint kj = 0; kj < p.kw; ++kj) {
        const uint tap = ki * p.kw + kj;
        const uint off_ch = (n * p.offset_group + og) * 2 * taps + 2 * tap;
        const float dy = off[off_ch * plane_out + at], dx = off[(off_ch + 1) * plane_out + at];
        const float yy = float(int(oy) * p.stride_h - p.pad_h + int(ki) * p.dil_h) + dy;
        const float xx = float(int(ox) * p.stride_w - p.pad_w + int(kj) * p.dil_w) + dx;
        float v = bilinear(plane, yy, xx);
        if (HAS_MASK) v *= mask[((n * p.offset_group + og) * taps + tap) * plane_out + at];
        sum += v * wt[((o * cg + ci) * p.kh + ki) * p.kw + kj];
      }
    }
  }
  y[i] = sum;
}
