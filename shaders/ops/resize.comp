// SPDX-License-Identifier: Apache-2.0
// Resize (fp32) by separable per-axis tap tables built on the host: for each
// resized axis and output coordinate, TAPS (input index, weight) pairs —
// 1 for nearest, 2 for linear, 4 for cubic, the widest window with antialias
// (shorter ones padded with zero weights) — with index -1 meaning "outside
// the crop box: write the extrapolation value". Axes whose mapping is the
// identity are not in `resized_mask` and index the input directly. One
// invocation per output element sums the product of the resized axes' taps.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const uint TAPS = 1;

const uint kMaxRank = 6;

layout(binding = 0) readonly buffer XBuf { float x[]; };
layout(binding = 1) readonly buffer TableBuf { uint table[]; };  // (index, weight bits) pairs
layout(binding = 2) writeonly buffer YBuf { float y[]; };

layout(push_constant, std430) uniform Params {
  uint rank;
  uint total;          // output elements
  float extrapolation;
  uint resized_mask;   // bit d: axis d goes through its table
  uint out_dims[kMaxRank];
  uint in_strides[kMaxRank];
  uint table_offset[kMaxRank];  // in pairs, where axis d's entries start
} p;

void main() {
  const uint idx =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (idx >= p.total) return;
  uint coord[kMaxRank];
  uint rest = idx;
  uint base = 0;
  uint resized = 0;
  for (int d = int(p.rank) - 1; d >= 0; --d) {
    coord[d] = rest % p.out_dims[d];
    rest /= p.out_dims[d];
    if ((p.resized_mask & (1u << d)) == 0u) {
      base += coord[d] * p.in_strides[d];
    } else {
      ++resized;
      if (int(table[(p.table_offset[d] + coord[d] * TAPS) * 2]) < 0) {
        y[idx] = p.extrapolation;
        return;
      }
    }
  }
  uint combos = 1;
  for (uint i = 0; i < resized; ++i) combos *= TAPS;
  float sum = 0.0;
  for (uint c = 0; c < combos; ++c) {
    uint pick = c;
    uint offset = base;
    float weight = 1.0;
    for (uint d = 0; d < p.rank; ++d) {
      if ((p.resized_mask & (1u << d)) == 0u) continue;
      const uint t = pick % TAPS;
      pick /= TAPS;
      const uint e = (p.table_offset[d] + coord[d] * TAPS + t) * 2;
      offset += table[e] * p.in_strides[d];
      weight *= uintBitsToFloat(table[e + 1]);
    }
    sum += weight * x[offset];
  }
  y[idx] = sum;
}
