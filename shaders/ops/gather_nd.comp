// SPDX-License-Identifier: Apache-2.0
// GatherND of 4- or 8-byte elements (WORDS 1 or 2) with int64 indices
// [batch..., rows..., K]: output element i is element `within` of the slice
// that index row `row` = i / slice selects in batch row / rows_per_batch:
//   data offset = batch * batch_stride + sum_j idx[row, j] * strides[j] + within
// (negative indices count from the end of their dim). Index as in op_util.h
// GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint WORDS = 1;

layout(binding = 0) readonly buffer Data { uint data[]; };
layout(binding = 1) readonly buffer Indices { ivec2 indices[]; };  // int64 as (lo, hi)
layout(binding = 2) writeonly buffer Y { uint y[]; };

layout(push_constant) uniform Params {
  uint n;
  uint slice;           // elements per gathered slice
  uint k;               // index tuple length
  uint rows_per_batch;
  uint batch_stride;    // elements of data per batch entry
  uint dims[8];         // data dims the tuple indexes
  uint strides[8];
} p;

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.n) return;
  const uint row = i / p.slice;
  uint off = (row / p.rows_per_batch) * p.batch_stride + i % p.slice;
  for (uint j = 0; j < p.k; ++j) {
    int v = indices[row * p.k + j].x;
    if (v < 0) v += int(p.dims[j]);
    off += uint(clamp(v, 0, int(p.dims[j]) - 1)) * p.strides[j];
  }
  for (uint w = 0; w < WORDS; ++w) y[i * WORDS + w] = data[off * WORDS + w];
}
