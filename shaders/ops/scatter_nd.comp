// SPDX-License-Identifier: Apache-2.0
// ScatterND updates after out = data (copied by an earlier step): with int64
// index tuples [rows, K] and updates [rows, slice], invocation w applies
// element w of every row's slice, rows in order:
//   out[sum_j idx[r, j] * strides[j] + w] (op)= updates[r * slice + w]
// (scatter_common.glsl). Index as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(binding = 0) readonly buffer Unused { uint unused[]; };  // data (already copied)
layout(binding = 1) readonly buffer Indices { ivec2 indices[]; };

#include "scatter_common.glsl"

layout(push_constant) uniform Params {
  uint slice;
  uint rows;
  uint k;
  uint dims[8];
  uint strides[8];
} p;

void main() {
  const uint w = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (w >= p.slice) return;
  for (uint r = 0; r < p.rows; ++r) {
    uint off = w;
    for (uint j = 0; j < p.k; ++j) off += uint(NormalizedIndex(indices[r * p.k + j], p.dims[j])) * p.strides[j];
    Apply(off, r * p.slice + w);
  }
}
