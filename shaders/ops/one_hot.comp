// SPDX-License-Identifier: Apache-2.0
// OneHot: output [outer, depth, inner] (the indices are [outer, inner]) of
// 4- or 8-byte elements (WORDS 1 or 2): values[1] where the index, read as
// INDEX (0 fp32, 1 int32, 2 int64) and taken modulo depth when negative,
// equals the position along depth, else values[0]. One invocation per
// output element; index as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint WORDS = 1;
layout(constant_id = 4) const uint INDEX = 2;

layout(binding = 0) readonly buffer IdxF { float idx_f[]; };
layout(binding = 0) readonly buffer IdxI { int idx_i[]; };
layout(binding = 0) readonly buffer IdxL { ivec2 idx_l[]; };
layout(binding = 1) readonly buffer Values { uint values[]; };
layout(binding = 2) writeonly buffer Y { uint y[]; };

layout(push_constant) uniform Params {
  uint n;
  uint depth;
  uint inner;
} p;

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.n) return;
  const uint in_row = i % p.inner;
  const uint d = (i / p.inner) % p.depth;
  const uint o = i / (p.inner * p.depth);
  const uint at = o * p.inner + in_row;
  int index;
  bool valid = true;
  if (INDEX == 0u) {
    index = int(trunc(idx_f[at]));
  } else if (INDEX == 1u) {
    index = idx_i[at];
  } else {
    const ivec2 v = idx_l[at];  // int64 as (lo, hi)
    valid = v.y == 0 || v.y == -1;
    index = v.x;
  }
  if (index < 0) index += int(p.depth);
  const bool hot = valid && index == int(d);
  for (uint w = 0; w < WORDS; ++w) y[i * WORDS + w] = values[(hot ? 1u : 0u) * WORDS + w];
}
