// SPDX-License-Identifier: Apache-2.0
// NonZero at a sync point (runtime/sync_split.h): the coordinates of X's
// non-zero elements (ELEM_BYTES 1, 2, 4 or 8; IS_FLOAT ignores the sign bit,
// so -0.0 counts as zero, NaN as non-zero) in row-major order, written
// densely as int64 [rank, n], and n into `count` (int64). One workgroup of
// LOCAL invocations: each takes a contiguous chunk of X, counts it, the
// chunk offsets are summed in shared memory, then each writes its chunk's
// coordinates — n is known before any coordinate is written.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint ELEM_BYTES = 4;
layout(constant_id = 4) const bool IS_FLOAT = false;
const uint LOCAL = 128;  // the workgroup size the kernel dispatches

layout(binding = 0) readonly buffer X { uint x[]; };
layout(binding = 1) writeonly buffer Y { uint y[]; };      // int64 as (lo, hi)
layout(binding = 2) writeonly buffer Count { uint count[]; };

layout(push_constant) uniform Params {
  uint n;     // elements of X
  uint rank;
  uint dims[8];
} p;

shared uint offsets[LOCAL];
shared uint total;

bool nonzero(uint i) {
  if (ELEM_BYTES == 8) {
    const uint hi = x[2 * i + 1] & (IS_FLOAT ? 0x7fffffffu : 0xffffffffu);
    return (x[2 * i] | hi) != 0u;
  }
  if (ELEM_BYTES == 4) return (x[i] & (IS_FLOAT ? 0x7fffffffu : 0xffffffffu)) != 0u;
  if (ELEM_BYTES == 2) return ((x[i / 2] >> ((i % 2) * 16)) & (IS_FLOAT ? 0x7fffu : 0xffffu)) != 0u;
  return ((x[i / 4] >> ((i % 4) * 8)) & 0xffu) != 0u;
}

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint chunk = (p.n + LOCAL - 1) / LOCAL;
  const uint begin = min(t * chunk, p.n), end = min(begin + chunk, p.n);
  uint mine = 0;
  for (uint i = begin; i < end; ++i) mine += nonzero(i) ? 1u : 0u;
  offsets[t] = mine;
  barrier();
  if (t == 0) {
    uint sum = 0;
    for (uint k = 0; k < LOCAL; ++k) {
      const uint c = offsets[k];
      offsets[k] = sum;
      sum += c;
    }
    total = sum;
    count[0] = sum;
    count[1] = 0u;
  }
  barrier();
  const uint n = total;
  uint pos = offsets[t];
  for (uint i = begin; i < end; ++i) {
    if (!nonzero(i)) continue;
    uint rem = i;
    for (uint r = p.rank; r-- > 0;) {
      const uint at = 2 * (r * n + pos);
      y[at] = rem % p.dims[r];
      y[at + 1] = 0u;
      rem /= p.dims[r];
    }
    ++pos;
  }
}
