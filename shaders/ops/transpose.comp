// SPDX-License-Identifier: Apache-2.0
// Tiled transpose: the fast path of a strided copy (runtime/kernels/strided_copy.h)
// whose source is contiguous along dim P while the destination is contiguous
// along the last dim Q. A workgroup of 32 x 8 invocations moves a 32 x 32
// tile through shared memory, so both the reads (along P) and the writes
// (along Q) are coalesced. Up to two further dims are batch dims, walked by
// gl_WorkGroupID.z. Elements are UNIT_WORDS 32-bit words (4- or 8-byte
// types), moved as bits.
#version 450

// The kernel always runs it with a 32 x 8 x 1 workgroup.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint UNIT_WORDS = 1;

layout(binding = 0) readonly buffer Src { uint src[]; };
layout(binding = 1) writeonly buffer Dst { uint dst[]; };

layout(push_constant) uniform Params {
  uint p_extent;      // dim P: source stride 1
  uint q_extent;      // dim Q: destination stride 1
  uint q_src_stride;  // source stride of Q
  uint p_dst_stride;  // destination stride of P
  uint batch_extent[2];  // outer, inner
  uint batch_src_stride[2];
  uint batch_dst_stride[2];
  uint src_base;
  uint dst_base;
} p;

const uint TILE = 32;
shared uint tile[UNIT_WORDS][TILE][TILE + 1];

void main() {
  const uint b = gl_WorkGroupID.z;
  const uint b1 = b % p.batch_extent[1];
  const uint b0 = b / p.batch_extent[1];
  const uint src_base = p.src_base + b0 * p.batch_src_stride[0] + b1 * p.batch_src_stride[1];
  const uint dst_base = p.dst_base + b0 * p.batch_dst_stride[0] + b1 * p.batch_dst_stride[1];
  const uint q0 = gl_WorkGroupID.x * TILE;
  const uint p0 = gl_WorkGroupID.y * TILE;
  const uint lx = gl_LocalInvocationID.x;
  const uint ly = gl_LocalInvocationID.y;

  // Read along P (contiguous in the source).
  for (uint k = 0; k < TILE; k += 8) {
    const uint q = q0 + ly + k;
    const uint pp = p0 + lx;
    if (q < p.q_extent && pp < p.p_extent) {
      const uint s = src_base + pp + q * p.q_src_stride;
      for (uint w = 0; w < UNIT_WORDS; ++w) tile[w][ly + k][lx] = src[s * UNIT_WORDS + w];
    }
  }
  barrier();
  // Write along Q (contiguous in the destination).
  for (uint k = 0; k < TILE; k += 8) {
    const uint pp = p0 + ly + k;
    const uint q = q0 + lx;
    if (q < p.q_extent && pp < p.p_extent) {
      const uint d = dst_base + pp * p.p_dst_stride + q;
      for (uint w = 0; w < UNIT_WORDS; ++w) dst[d * UNIT_WORDS + w] = tile[w][lx][ly + k];
    }
  }
}
