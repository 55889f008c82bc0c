// SPDX-License-Identifier: Apache-2.0
// TensorScatter (runtime/ops/indexing/tensor_scatter.cc): present = past with each
// batch's update rows written along the sequence axis from its write index.
// One pass over the output rather than copy-then-scatter: every element asks
// which update row, if any, lands on it (s = l - w, modulo the cache length
// when CIRCULAR); since the update is no longer than the cache, at most one
// does, so there are no write conflicts and no ordering between dispatches.
// Shapes are viewed as [batch, outer, len, inner] (cache, len = max length)
// and [batch, outer, seq, inner] (update). Bits are moved, never converted:
// UNIT_BYTES 4 or 8 takes one invocation per element; 1 or 2 one per output
// word (so no two invocations share a word). Write indices are int64 read as
// two 32-bit words; one outside int32 writes no row.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint UNIT_BYTES = 4;
layout(constant_id = 4) const bool CIRCULAR = false;
layout(constant_id = 5) const bool HAS_INDICES = false;

layout(binding = 0) readonly buffer Past { uint past[]; };
layout(binding = 1) readonly buffer Update { uint update[]; };
layout(binding = 2) readonly buffer Indices { ivec2 write_indices[]; };
layout(binding = 3) writeonly buffer Present { uint present[]; };

layout(push_constant) uniform Params {
  uint n;          // cache elements
  uint invocations;
  uint outer;      // product of the dims between batch and the axis
  uint len;        // cache length along the axis
  uint seq;        // update length along the axis
  uint inner;      // product of the dims after the axis
} p;

// The update element landing on cache element `e`, or -1 for none.
int Source(uint e) {
  const uint i = e % p.inner;
  uint t = e / p.inner;
  const int l = int(t % p.len);
  t /= p.len;
  const uint a = t % p.outer;
  const uint b = t / p.outer;
  int w = 0;
  if (HAS_INDICES) {
    const ivec2 v = write_indices[b];
    if (v.y != (v.x >> 31)) return -1;  // beyond int32: no row lands in the cache
    w = v.x;
  }
  int s = l - w;
  if (CIRCULAR) {
    // (l - w) mod len in unsigned arithmetic: GLSL leaves % of a negative
    // operand undefined, and NVIDIA's compiler does return garbage for it.
    // w mod len, kept in [0, len): for w = -(k + 1), it is len - 1 - k mod len.
    const uint wm = w >= 0 ? uint(w) % p.len : p.len - 1u - uint(-(w + 1)) % p.len;
    s = int((uint(l) + p.len - wm) % p.len);
  }
  if (s < 0 || s >= int(p.seq)) return -1;
  return int(((b * p.outer + a) * p.seq + uint(s)) * p.inner + i);
}

void main() {
  const uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  if (id >= p.invocations) return;
  if (UNIT_BYTES >= 4) {
    const uint words = UNIT_BYTES / 4;
    const int from = Source(id);
    for (uint k = 0; k < words; ++k) {
      present[id * words + k] = from < 0 ? past[id * words + k] : update[uint(from) * words + k];
    }
    return;
  }
  const uint per_word = 4 / UNIT_BYTES;
  const uint bits = UNIT_BYTES * 8;
  const uint mask = (1u << bits) - 1u;
  uint word = 0;
  for (uint j = 0; j < per_word; ++j) {
    const uint e = id * per_word + j;
    if (e >= p.n) break;
    const int from = Source(e);
    const uint at = from < 0 ? e : uint(from);
    const uint v = ((from < 0 ? past[at / per_word] : update[at / per_word]) >> ((at % per_word) * bits)) & mask;
    word |= v << (j * bits);
  }
  present[id] = word;
}
