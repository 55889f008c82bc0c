// SPDX-License-Identifier: Apache-2.0
// ScatterElements updates after out = data (copied by an earlier step):
// indices and updates share a shape; one invocation per line along `axis`
// (every position but the axis coordinate) applies its entries in order:
//   out[line's coords, axis = idx[line, j]] (op)= updates[line, j]
// (scatter_common.glsl). Index as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(binding = 0) readonly buffer Unused { uint unused[]; };  // data (already copied)
layout(binding = 1) readonly buffer Indices { ivec2 indices[]; };

#include "scatter_common.glsl"

layout(push_constant) uniform Params {
  uint lines;
  uint rank;
  uint axis;
  uint data_axis_dim;
  uint idx_dims[6];
  uint data_strides[6];
} p;

void main() {
  const uint line = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (line >= p.lines) return;
  // The line's coordinates (axis coordinate 0) in indices and in data.
  uint rest = line, idx_off = 0, data_off = 0, idx_stride = 1, axis_stride = 1;
  for (int d = int(p.rank) - 1; d >= 0; --d) {
    if (uint(d) == p.axis) {
      axis_stride = idx_stride;
    } else {
      const uint c = rest % p.idx_dims[d];
      rest /= p.idx_dims[d];
      idx_off += c * idx_stride;
      data_off += c * p.data_strides[d];
    }
    idx_stride *= p.idx_dims[d];
  }
  for (uint j = 0; j < p.idx_dims[p.axis]; ++j) {
    const uint at = idx_off + j * axis_stride;
    const int t = NormalizedIndex(indices[at], p.data_axis_dim);
    Apply(data_off + uint(t) * p.data_strides[p.axis], at);
  }
}
