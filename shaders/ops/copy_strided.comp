// SPDX-License-Identifier: Apache-2.0
// One strided copy (runtime/kernels/strided_copy.h): for every index of `shape`,
//   dst[dst_base + sum(i_k * dst_stride[k])] = src[src_base + sum(i_k * src_stride[k])]
// in units of UNIT_BYTES (1, 2, 4, 8 or 16). Bits are moved, never converted,
// so one shader serves every dtype. Units below 4 bytes are addressed through
// 32-bit words and written with atomics so that neighbouring invocations may
// share a word. Strides may be 0 (broadcast) or negative (reversal): the
// index arithmetic wraps in uint, which is exact for in-range results.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint UNIT_BYTES = 4;

layout(binding = 0) readonly buffer Src { uint src[]; };
layout(binding = 0) readonly buffer Src2 { uvec2 src2[]; };
layout(binding = 0) readonly buffer Src4 { uvec4 src4[]; };
layout(binding = 1) buffer Dst { uint dst[]; };
layout(binding = 1) buffer Dst2 { uvec2 dst2[]; };
layout(binding = 1) buffer Dst4 { uvec4 dst4[]; };

#define MAX_RANK 8

layout(push_constant) uniform Params {
  uint count;
  uint rank;
  uint src_base;
  uint dst_base;
  uint shape[MAX_RANK];
  int src_stride[MAX_RANK];
  int dst_stride[MAX_RANK];
} p;

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  if (i >= p.count) return;
  uint s = p.src_base;
  uint d = p.dst_base;
  uint rem = i;
  for (uint k = p.rank; k > 0; --k) {
    const uint extent = p.shape[k - 1];
    const uint c = rem % extent;
    rem /= extent;
    s += c * uint(p.src_stride[k - 1]);
    d += c * uint(p.dst_stride[k - 1]);
  }
  if (UNIT_BYTES == 16) {
    dst4[d] = src4[s];
  } else if (UNIT_BYTES == 8) {
    dst2[d] = src2[s];
  } else if (UNIT_BYTES == 4) {
    dst[d] = src[s];
  } else {
    const uint per_word = 4 / UNIT_BYTES;
    const uint bits = UNIT_BYTES * 8;
    const uint mask = (1u << bits) - 1u;
    const uint v = (src[s / per_word] >> ((s % per_word) * bits)) & mask;
    const uint shift = (d % per_word) * bits;
    atomicAnd(dst[d / per_word], ~(mask << shift));
    atomicOr(dst[d / per_word], v << shift);
  }
}
