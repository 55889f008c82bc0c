// SPDX-License-Identifier: Apache-2.0
// GatherElements: out[c] = data[c with c[axis] = indices[c]] for every
// position c of the output (indices' shape); data is read through its own
// strides. ELEM_BYTES 1, 2, 4 or 8; int32 or int64 indices (INDEX_64).
// Negative indices count from the end; out-of-range ones are clamped (see
// runtime/ops/indexing/gather_elements.cc). Elements narrower than a word are
// gathered four or two per invocation, so every output word has one writer.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint ELEM_BYTES = 4;
layout(constant_id = 4) const bool INDEX_64 = true;

layout(binding = 0) readonly buffer Data { uint data[]; };
layout(binding = 1) readonly buffer Indices { uint indices[]; };
layout(binding = 2) buffer Out { uint dst[]; };

#define MAX_RANK 8  // kMaxRank in runtime/ops/indexing/gather_elements.cc

layout(push_constant) uniform Params {
  uint count;  // output elements
  uint rank;
  uint axis;
  uint axis_dim;
  uint out_shape[MAX_RANK];
  uint data_stride[MAX_RANK];
} p;

int load_index(uint j) {
  if (!INDEX_64) return int(indices[j]);
  const uint lo = indices[2 * j];
  const uint hi = indices[2 * j + 1];
  // Values that fit in int32 have hi equal to lo's sign extension; anything
  // else is far out of range and only its sign matters.
  if (hi == ((lo & 0x80000000u) != 0u ? 0xffffffffu : 0u)) return int(lo);
  return int(hi) < 0 ? -2147483647 : 2147483647;
}

// The data element index output element i reads.
uint source(uint i) {
  int idx = load_index(i);
  if (idx < 0) idx += int(p.axis_dim);
  idx = clamp(idx, 0, int(p.axis_dim) - 1);
  uint src = 0u, rem = i;
  for (uint k = p.rank; k > 0; --k) {
    const uint d = k - 1;
    const uint coord = rem % p.out_shape[d];
    rem /= p.out_shape[d];
    src += (d == p.axis ? uint(idx) : coord) * p.data_stride[d];
  }
  return src;
}

void main() {
  const uint w = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  if (ELEM_BYTES >= 4u) {
    if (w >= p.count) return;
    const uint words = ELEM_BYTES / 4u;
    const uint s = source(w);
    for (uint k = 0u; k < words; ++k) dst[w * words + k] = data[s * words + k];
    return;
  }
  const uint per_word = 4u / ELEM_BYTES;
  const uint bits = ELEM_BYTES * 8u;
  const uint mask = (1u << bits) - 1u;
  if (w * per_word >= p.count) return;
  uint word = 0u;
  for (uint j = 0u; j < per_word; ++j) {
    const uint i = w * per_word + j;
    if (i >= p.count) break;
    const uint s = source(i);
    word |= ((data[s / per_word] >> ((s % per_word) * bits)) & mask) << (j * bits);
  }
  dst[w] = word;
}
