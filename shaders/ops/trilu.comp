// SPDX-License-Identifier: Apache-2.0
// Trilu on [..., rows, cols] of 4- or 8-byte elements (WORDS 1 or 2): element
// (r, c) of every matrix is kept when c - r >= k (UPPER) or c - r <= k
// (lower), else zeroed. One invocation per element; index as in op_util.h
// GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint WORDS = 1;
layout(constant_id = 4) const bool UPPER = true;

layout(binding = 0) readonly buffer X { uint x[]; };
layout(binding = 1) writeonly buffer Y { uint y[]; };

layout(push_constant) uniform Params {
  uint n;
  uint rows;
  uint cols;
  int k;
} p;

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.n) return;
  const int c = int(i % p.cols);
  const int r = int((i / p.cols) % p.rows);
  const bool keep = UPPER ? c - r >= p.k : c - r <= p.k;
  for (uint w = 0; w < WORDS; ++w) y[i * WORDS + w] = keep ? x[i * WORDS + w] : 0u;
}
