// SPDX-License-Identifier: Apache-2.0
// MaxPool / AveragePool / LpPool (KIND 0 / 1 / 2) over 1-D, 2-D or 3-D
// windows (NCDHW fp32; 2-D as D = 1, 1-D as D = H = 1); LpPool computes (sum |x|^P)^(1/P), padding
// adding nothing:
// one invocation per output element. AveragePool divides by the taps inside
// the input (count_include_pad = 0) or inside the padded input
// (count_include_pad = 1; taps past the end padding, which ceil_mode can add,
// never count), as ONNX Runtime does. X and Y are fp32, or fp16 in the
// "_f16" variant (VKSERVE_F16; the sums and powers in fp32).
#version 450
#extension GL_EXT_control_flow_attributes : enable
#include "precision.glsl"
#if VKSERVE_F16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define P_T float16_t
#else
#define P_T float
#endif

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const uint KH = 3;
layout(constant_id = 4) const uint KW = 3;
layout(constant_id = 5) const uint SH = 1;
layout(constant_id = 6) const uint SW = 1;
layout(constant_id = 7) const uint DH = 1;
layout(constant_id = 8) const uint DW = 1;
layout(constant_id = 9) const uint KIND = 0;
layout(constant_id = 10) const bool COUNT_INCLUDE_PAD = false;
layout(constant_id = 11) const uint P = 2;
layout(constant_id = 12) const uint KD = 1;
layout(constant_id = 13) const uint SD = 1;
layout(constant_id = 14) const uint DD = 1;
// MaxPool's Indices output (binding 2, int64 as (lo, hi) words): the flat
// index of each maximum in X, row-major (STORAGE_ORDER 0) or with H and W
// swapped (1, 2-D only).
layout(constant_id = 15) const bool INDICES = false;
layout(constant_id = 16) const uint STORAGE_ORDER = 0;
const bool AVERAGE = KIND == 1u;

layout(binding = 0) readonly buffer XBuf { P_T x[]; };
layout(binding = 1) writeonly buffer YBuf { P_T y[]; };
layout(binding = 2) writeonly buffer IBuf { uint indices[]; };

layout(push_constant) uniform Params {
  uint in_h;
  uint in_w;
  uint out_h;
  uint out_w;
  uint total;  // output elements
  int pad_top;
  int pad_left;
  int pad_bottom;
  int pad_right;
  uint in_d;
  uint out_d;
  int pad_front;
  int pad_back;
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
  const uint plane = t / p.out_d;  // batch * channels + channel
  const int iz0 = int(oz * SD) - p.pad_front;
  const int iy0 = int(oy * SH) - p.pad_top;
  const int ix0 = int(ox * SW) - p.pad_left;

  float acc = KIND == 0u ? -3.402823466e38 : 0.0;
  uint best = 0;
  uint rows = 0;
  uint cols = 0;
  uint padded_rows = 0;
  uint padded_cols = 0;
  uint slices = 0;
  uint padded_slices = 0;
  [[unroll]] for (uint kx = 0; kx < KW; ++kx) {
    const int ix = ix0 + int(kx * DW);
    if (ix >= 0 && ix < int(p.in_w)) ++cols;
    if (ix < int(p.in_w) + p.pad_right) ++padded_cols;
  }
  [[unroll]] for (uint ky = 0; ky < KH; ++ky) {
    const int iy = iy0 + int(ky * DH);
    if (iy < int(p.in_h) + p.pad_bottom) ++padded_rows;
    if (iy >= 0 && iy < int(p.in_h)) ++rows;
  }
  for (uint kz = 0; kz < KD; ++kz) {
    const int iz = iz0 + int(kz * DD);
    if (iz < int(p.in_d) + p.pad_back) ++padded_slices;
    if (iz < 0 || iz >= int(p.in_d)) continue;
    ++slices;
  [[unroll]] for (uint ky = 0; ky < KH; ++ky) {
    const int iy = iy0 + int(ky * DH);
    if (iy < 0 || iy >= int(p.in_h)) continue;
    const uint row = ((plane * p.in_d + uint(iz)) * p.in_h + uint(iy)) * p.in_w;
    [[unroll]] for (uint kx = 0; kx < KW; ++kx) {
      const int ix = ix0 + int(kx * DW);
      if (ix < 0 || ix >= int(p.in_w)) continue;
      const float v = float(x[row + uint(ix)]);
      if (KIND == 0u) {
        if (INDICES && v > acc) {
          best = STORAGE_ORDER == 0u ? row + uint(ix)
                                     : plane * p.in_h * p.in_w + uint(ix) * p.in_h + uint(iy);
        }
        acc = max(acc, v);
      } else if (KIND == 1u) {
        acc += v;
      } else {
        float t = 1.0;  // |v|^P by multiplication: exact for the small integer P used
        for (uint e = 0; e < P; ++e) t *= abs(v);
        acc += t;
      }
    }
  }
  }
  if (KIND == 2u) acc = pow(acc, 1.0 / float(P));
  if (AVERAGE) {
    const uint count = COUNT_INCLUDE_PAD ? padded_slices * padded_rows * padded_cols
                                         : slices * rows * cols;
    acc = count > 0 ? acc / float(count) : 0.0;
  }
  y[idx] = P_T(acc);
  if (INDICES) {
    indices[2u * idx] = best;
    indices[2u * idx + 1u] = 0u;
  }
}
