// SPDX-License-Identifier: Apache-2.0
// Where a device's cooperative-matrix fragments hold their elements
// (runtime/kernels/tensor_core_layout.h reads the answer): one subgroup loads
// a 16x16 matrix whose element (r, c) is 16 r + c as an fp32 accumulator and
// as an fp16 A operand, and writes what each lane holds:
//   out[8 L + e]        element e of lane L of the accumulator (e < 8)
//   out[256 + 8 L + e]  the same of the A operand
//   out[512], out[513]  their lengths per lane
// The product at the end gives the operands their uses (A and B) in the KHR
// form, whose element layouts may differ by use; its result is not read.
//
// EMULATE: writes the layout the kernels' scalar emulation uses
// (flash_attention_cm_regs.glsl), so that tests run the probe's plumbing on
// any device.
#version 450

#extension GL_EXT_control_flow_attributes : require
#if !EMULATE
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

layout(local_size_x = 32) in;
layout(binding = 0) buffer Out { float o[]; };  // 770 floats

#if EMULATE
void main() {
  const uint lane = gl_LocalInvocationID.x;
  [[unroll]] for (uint e = 0; e < 8u; ++e) {
    const float at = float(16u * ((lane >> 2) + 8u * ((e >> 1) & 1u)) + 2u * (lane & 3u) + (e & 1u) + 8u * (e >> 2));
    o[8u * lane + e] = at;
    o[256u + 8u * lane + e] = at;
  }
  if (lane == 0u) {
    o[512] = 8.0;
    o[513] = 8.0;
  }
}
#else
shared uvec4 f32_sh[64];  // 16 x 16 floats
shared uvec4 f16_sh[32];  // 16 x 16 halves

void main() {
  const uint lane = gl_LocalInvocationID.x;
  [[unroll]] for (uint u = 0; u < 2u; ++u) {
    const uint x = 2u * lane + u;
    f32_sh[x] = uvec4(floatBitsToUint(4.0 * x), floatBitsToUint(4.0 * x + 1.0), floatBitsToUint(4.0 * x + 2.0),
                      floatBitsToUint(4.0 * x + 3.0));
  }
  const float h0 = 8.0 * lane;
  f16_sh[lane] = uvec4(packHalf2x16(vec2(h0, h0 + 1.0)), packHalf2x16(vec2(h0 + 2.0, h0 + 3.0)),
                       packHalf2x16(vec2(h0 + 4.0, h0 + 5.0)), packHalf2x16(vec2(h0 + 6.0, h0 + 7.0)));
  memoryBarrierShared();
  barrier();
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> c;
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a, b;
  coopMatLoadNV(c, f32_sh, 0, 4, false);
  coopMatLoadNV(a, f16_sh, 0, 2, false);
  coopMatLoadNV(b, f16_sh, 0, 2, false);
  for (int e = 0; e < c.length() && e < 8; ++e) o[8u * lane + e] = c[e];
  for (int e = 0; e < a.length() && e < 8; ++e) o[256u + 8u * lane + e] = float(a[e]);
  if (lane == 0u) {
    o[512] = float(c.length());
    o[513] = float(a.length());
  }
  c = coopMatMulAddNV(a, b, c);
  coopMatStoreNV(c, o, 514, 16, false);
}
#endif
