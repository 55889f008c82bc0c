// SPDX-License-Identifier: Apache-2.0
// Unique at a sync point (runtime/sync_split.h): X seen as [outer, rows,
// inner], the distinct rows (slices along the axis; elements without one).
// KIND 0 fp32, 1 int32, 2 int64 (as (lo, hi) words). One workgroup:
//   1. first[i]: the first row equal to row i;
//   2. rank[i] of each first occurrence: rows ordered by value (SORTED,
//      lexicographic over (outer, inner)) or by first occurrence; n, their
//      number, in shared memory;
//   3. Y densely [outer, n, inner], indices / counts at each rank, and
//      inverse_indices per row, int64; n into `count`.
// Quadratic in the rows: meant for the index-sized inputs Unique gets.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint KIND = 0;
const uint LOCAL = 64;  // the workgroup size the kernel dispatches

layout(binding = 0) readonly buffer X { uint x[]; };
layout(binding = 1) writeonly buffer Y { uint y[]; };
layout(binding = 2) writeonly buffer Indices { uint indices[]; };
layout(binding = 3) writeonly buffer Inverse { uint inverse[]; };
layout(binding = 4) writeonly buffer Counts { uint counts[]; };
layout(binding = 5) writeonly buffer Count { uint count[]; };
layout(binding = 6) buffer First { uint first[]; };
layout(binding = 7) buffer Rank { uint rank_of[]; };

layout(push_constant) uniform Params {
  uint outer;
  uint rows;
  uint inner;
  uint sorted;
} p;

shared uint total;

const uint WORDS = KIND == 2 ? 2 : 1;

// -1, 0 or 1: element a against element b.
int compare_elements(uint a, uint b) {
  if (KIND == 0) {
    const float u = uintBitsToFloat(x[a]), v = uintBitsToFloat(x[b]);
    return u < v ? -1 : (u > v ? 1 : 0);
  }
  if (KIND == 1) {
    const int u = int(x[a]), v = int(x[b]);
    return u < v ? -1 : (u > v ? 1 : 0);
  }
  const int uh = int(x[2 * a + 1]), vh = int(x[2 * b + 1]);
  if (uh != vh) return uh < vh ? -1 : 1;
  const uint ul = x[2 * a], vl = x[2 * b];
  return ul < vl ? -1 : (ul > vl ? 1 : 0);
}

int compare_rows(uint i, uint j) {
  for (uint o = 0; o < p.outer; ++o) {
    for (uint e = 0; e < p.inner; ++e) {
      const int c = compare_elements((o * p.rows + i) * p.inner + e, (o * p.rows + j) * p.inner + e);
      if (c != 0) return c;
    }
  }
  return 0;
}

void store64(uint at, uint v, uint which) {
  if (which == 2) { indices[2 * at] = v; indices[2 * at + 1] = 0u; }
  if (which == 3) { inverse[2 * at] = v; inverse[2 * at + 1] = 0u; }
  if (which == 4) { counts[2 * at] = v; counts[2 * at + 1] = 0u; }
}

void main() {
  const uint t = gl_LocalInvocationID.x;
  if (t == 0) total = 0;
  for (uint i = t; i < p.rows; i += LOCAL) {
    uint f = i;
    for (uint j = 0; j < i; ++j) {
      if (compare_rows(j, i) == 0) {
        f = j;
        break;
      }
    }
    first[i] = f;
  }
  memoryBarrierBuffer();
  barrier();
  uint mine = 0;
  for (uint i = t; i < p.rows; i += LOCAL) {
    if (first[i] != i) continue;
    ++mine;
    uint r = 0;
    for (uint j = 0; j < p.rows; ++j) {
      if (first[j] != j || j == i) continue;
      if (p.sorted != 0u ? compare_rows(j, i) < 0 : j < i) ++r;
    }
    rank_of[i] = r;
  }
  atomicAdd(total, mine);
  memoryBarrierBuffer();
  barrier();
  const uint n = total;
  for (uint i = t; i < p.rows; i += LOCAL) {
    const uint f = first[i];
    const uint r = rank_of[f];
    store64(i, r, 3);
    if (f != i) continue;
    store64(r, i, 2);
    uint c = 0;
    for (uint j = i; j < p.rows; ++j) c += first[j] == i ? 1u : 0u;
    store64(r, c, 4);
    for (uint o = 0; o < p.outer; ++o) {
      for (uint e = 0; e < p.inner; ++e) {
        const uint src = (o * p.rows + i) * p.inner + e, dst = (o * n + r) * p.inner + e;
        for (uint w = 0; w < WORDS; ++w) y[dst * WORDS + w] = x[src * WORDS + w];
      }
    }
  }
  if (t == 0) {
    count[0] = n;
    count[1] = 0u;
  }
}
