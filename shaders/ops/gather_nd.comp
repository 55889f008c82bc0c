// SPDX-License-Identifier: Apache-2.0
// GatherND of 1-, 2-, 4-, 8- or 16-byte elements (ELEM_BYTES) with int64
// indices [batch..., rows..., K]: output element i is element `within` of
// the slice that index row `row` = i / slice selects in batch
// row / rows_per_batch:
//   data offset = batch * batch_stride + sum_j idx[row, j] * strides[j] + within
// (negative indices count from the end of their dim; out-of-range ones are
// clamped). Elements of a word or more: one invocation per element. Narrower
// ones: one invocation per output word, assembling the word's elements, so
// no two invocations write the same word (tensors own whole words). Index as
// in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint ELEM_BYTES = 4;

layout(binding = 0) readonly buffer Data { uint data[]; };
layout(binding = 1) readonly buffer Indices { uint indices[]; };  // int64 as (lo, hi)
layout(binding = 2) writeonly buffer Y { uint y[]; };

layout(push_constant) uniform Params {
  uint n;               // output elements
  uint slice;           // elements per gathered slice
  uint k;               // index tuple length
  uint rows_per_batch;
  uint batch_stride;    // elements of data per batch entry
  uint dims[8];         // data dims the tuple indexes
  uint strides[8];
} p;

// An int64 index saturated to int32: values outside it are out of range
// anyway and only their sign matters.
int load_index(uint j) {
  const uint lo = indices[2 * j];
  const uint hi = indices[2 * j + 1];
  if (hi == ((lo & 0x80000000u) != 0u ? 0xffffffffu : 0u)) return int(lo);
  return int(hi) < 0 ? -2147483647 : 2147483647;
}

// The data element output element i copies.
uint source_of(uint i) {
  const uint row = i / p.slice;
  uint off = (row / p.rows_per_batch) * p.batch_stride + i % p.slice;
  for (uint j = 0; j < p.k; ++j) {
    int v = load_index(row * p.k + j);
    if (v < 0) v += int(p.dims[j]);
    off += uint(clamp(v, 0, int(p.dims[j]) - 1)) * p.strides[j];
  }
  return off;
}

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (ELEM_BYTES >= 4) {
    const uint words = ELEM_BYTES / 4;
    if (i >= p.n) return;
    const uint off = source_of(i);
    for (uint w = 0; w < words; ++w) y[i * words + w] = data[off * words + w];
    return;
  }
  // i numbers output words here.
  const uint per_word = 4 / ELEM_BYTES;
  const uint bits = ELEM_BYTES * 8;
  const uint mask = (1u << bits) - 1u;
  if (i >= (p.n + per_word - 1) / per_word) return;
  uint word = 0;
  for (uint e = 0; e < per_word; ++e) {
    const uint out_elem = i * per_word + e;
    if (out_elem >= p.n) break;
    const uint s = source_of(out_elem);
    word |= ((data[s / per_word] >> ((s % per_word) * bits)) & mask) << (e * bits);
  }
  y[i] = word;
}
