// SPDX-License-Identifier: Apache-2.0
// Conv with one input channel per group (depthwise, group == C, with any
// channel multiplier), NCHW: one invocation per QUAD consecutive outputs of a
// row, with the KH x KW filter and the input row segment held in registers,
// and the fused epilogue (bias, residual add before or after the activation)
// applied in the store. Every tensor is fp32, or fp16 in the "_f16" variant
// (VKSERVE_F16), whose sums and epilogue stay in fp32: under FP16 precision a
// depthwise conv then reads and writes its neighbours' fp16 tensors directly
// instead of converting them on both sides.
#version 450
#extension GL_EXT_control_flow_attributes : enable
#include "precision.glsl"
#if VKSERVE_F16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define CD_T float16_t
#else
#define CD_T float
#endif

#include "activation.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const uint KH = 3;
layout(constant_id = 4) const uint KW = 3;
layout(constant_id = 5) const uint SH = 1;
layout(constant_id = 6) const uint SW = 1;
layout(constant_id = 7) const uint DH = 1;
layout(constant_id = 8) const uint DW = 1;
layout(constant_id = 9) const bool HAS_BIAS = false;
layout(constant_id = 10) const uint ACTIVATION = ACT_NONE;
layout(constant_id = 11) const uint RESIDUAL = 0;  // 1: before activation, 2: after

layout(binding = 0) readonly buffer XBuf { CD_T x[]; };
layout(binding = 1) readonly buffer WBuf { CD_T w[]; };
layout(binding = 2) readonly buffer BiasBuf { CD_T bias[]; };
layout(binding = 3) readonly buffer ResBuf { CD_T res[]; };
layout(binding = 4) writeonly buffer YBuf { CD_T y[]; };

layout(push_constant) uniform Params {
  uint c_in;
  uint in_h;
  uint in_w;
  uint c_out;
  uint out_h;
  uint out_w;
  uint cout_g;  // output channels per input channel
  uint total;   // invocations: batch * c_out * out_h * ceil(out_w / QUAD)
  int pad_top;
  int pad_left;
  float alpha;
  float beta;
} p;

// With stride 1 each invocation computes QUAD = 4 consecutive outputs of one
// row, loading the input row segment under their windows once; strided
// convs keep one output per invocation (their windows barely overlap, and
// neighbouring invocations then read neighbouring inputs).
const uint QUAD = SW == 1 ? 4 : 1;
const uint SPAN = (QUAD - 1) * SW + (KW - 1) * DW + 1;

void main() {
  const uint idx =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (idx >= p.total) return;
  const uint quads = (p.out_w + QUAD - 1) / QUAD;
  const uint ox0 = (idx % quads) * QUAD;
  uint t = idx / quads;
  const uint oy = t % p.out_h;
  t /= p.out_h;
  const uint co = t % p.c_out;
  const uint batch = t / p.c_out;
  const uint ci = co / p.cout_g;

  float wr[KH * KW];
  [[unroll]] for (uint i = 0; i < KH * KW; ++i) wr[i] = float(w[co * (KH * KW) + i]);

  const int iy0 = int(oy * SH) - p.pad_top;
  const int ix0 = int(ox0 * SW) - p.pad_left;
  const uint base = (batch * p.c_in + ci) * p.in_h * p.in_w;
  float sum[QUAD];
  [[unroll]] for (uint q = 0; q < QUAD; ++q) sum[q] = 0.0;
  [[unroll]] for (uint ky = 0; ky < KH; ++ky) {
    const int iy = iy0 + int(ky * DH);
    if (iy < 0 || iy >= int(p.in_h)) continue;
    const uint row = base + uint(iy) * p.in_w;
    float v[SPAN];
    [[unroll]] for (uint s = 0; s < SPAN; ++s) {
      const int ix = ix0 + int(s);
      v[s] = (ix >= 0 && ix < int(p.in_w)) ? float(x[row + uint(ix)]) : 0.0;
    }
    [[unroll]] for (uint q = 0; q < QUAD; ++q) {
      [[unroll]] for (uint kx = 0; kx < KW; ++kx) sum[q] += wr[ky * KW + kx] * v[q * SW + kx * DW];
    }
  }
  const uint out_base = ((batch * p.c_out + co) * p.out_h + oy) * p.out_w;
  [[unroll]] for (uint q = 0; q < QUAD; ++q) {
    const uint ox = ox0 + q;
    if (ox >= p.out_w) break;
    const uint o = out_base + ox;
    float r = sum[q];
    if (HAS_BIAS) r += float(bias[co]);
    if (RESIDUAL == 1u) r += float(res[o]);
    r = apply_activation(ACTIVATION, r, p.alpha, p.beta);
    if (RESIDUAL == 2u) r += float(res[o]);
    y[o] = CD_T(r);
  }
}
