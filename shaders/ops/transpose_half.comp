// SPDX-License-Identifier: Apache-2.0
// Tiled transpose of 2-byte elements: the fast path of a strided copy
// (runtime/kernels/strided_copy.h) of float16 (or any 16-bit type) whose
// source is contiguous along dim P while the destination is contiguous along
// the last dim Q. A workgroup of 32 x 8 invocations moves a 32 (P) x 64 (Q)
// tile through shared memory: reads along P, and writes whole 32-bit words
// of two Q neighbours, so no two invocations share a destination word and no
// atomics are needed (the per-element path, shaders/ops/copy_strided.comp,
// merges half-words with two atomics each). The kernel takes this path only
// where every destination row starts on a word and holds an even count.
// Up to two further dims are batch dims, walked by gl_WorkGroupID.z.
#version 450

// The kernel always runs it with a 32 x 8 x 1 workgroup.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(binding = 0) readonly buffer Src { uint src[]; };
layout(binding = 1) writeonly buffer Dst { uint dst[]; };

// The same block as shaders/ops/transpose.comp, in elements.
layout(push_constant) uniform Params {
  uint p_extent;      // dim P: source stride 1
  uint q_extent;      // dim Q: destination stride 1 (even)
  uint q_src_stride;  // source stride of Q
  uint p_dst_stride;  // destination stride of P (even)
  uint batch_extent[2];  // outer, inner
  uint batch_src_stride[2];
  uint batch_dst_stride[2];  // even
  uint src_base;
  uint dst_base;  // even
} p;

const uint TILE_P = 32;
const uint TILE_Q = 64;
// Half-words kept one per uint: [q][p], padded against bank conflicts.
shared uint tile[TILE_Q][TILE_P + 1];

uint ReadHalf(uint element) { return (src[element >> 1] >> ((element & 1u) * 16u)) & 0xFFFFu; }

void main() {
  const uint b = gl_WorkGroupID.z;
  const uint b1 = b % p.batch_extent[1];
  const uint b0 = b / p.batch_extent[1];
  const uint src_base = p.src_base + b0 * p.batch_src_stride[0] + b1 * p.batch_src_stride[1];
  const uint dst_base = p.dst_base + b0 * p.batch_dst_stride[0] + b1 * p.batch_dst_stride[1];
  const uint q0 = gl_WorkGroupID.x * TILE_Q;
  const uint p0 = gl_WorkGroupID.y * TILE_P;
  const uint lx = gl_LocalInvocationID.x;
  const uint ly = gl_LocalInvocationID.y;

  // Read along P (contiguous in the source).
  for (uint k = 0; k < TILE_Q; k += 8) {
    const uint q = q0 + ly + k;
    const uint pp = p0 + lx;
    if (q < p.q_extent && pp < p.p_extent) tile[ly + k][lx] = ReadHalf(src_base + pp + q * p.q_src_stride);
  }
  barrier();
  // Write along Q, one word (Q and Q + 1) per invocation.
  for (uint k = 0; k < TILE_P; k += 8) {
    const uint pp = p0 + ly + k;
    const uint q = q0 + 2u * lx;
    if (q < p.q_extent && pp < p.p_extent) {
      const uint d = dst_base + pp * p.p_dst_stride + q;
      dst[d >> 1] = tile[2u * lx][ly + k] | (tile[2u * lx + 1u][ly + k] << 16);
    }
  }
}
