// SPDX-License-Identifier: Apache-2.0
// Pad (any 4-byte element type, copied bitwise): one invocation per output
// element maps each coordinate back into the input by the pad mode —
// constant (out of range: `value`), reflect (mirror, edge not repeated),
// edge (clamp) or wrap (modulo). Negative pads crop. Up to 8 dimensions
// (the host merges runs of unpadded dimensions first).
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const uint MODE = 0;  // 0 constant, 1 reflect, 2 edge, 3 wrap

layout(binding = 0) readonly buffer XBuf { uint x[]; };
layout(binding = 1) writeonly buffer YBuf { uint y[]; };

layout(push_constant, std430) uniform Params {
  uint rank;
  uint total;  // output elements
  uint value;  // constant mode: the pad value's bits
  uint pad0;
  uint out_dims[8];
  uint in_dims[8];
  int pad_begin[8];
} p;

void main() {
  const uint idx =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (idx >= p.total) return;
  uint rest = idx;
  uint src = 0;
  uint stride = 1;
  bool outside = false;
  for (int d = int(p.rank) - 1; d >= 0; --d) {
    const uint c = rest % p.out_dims[d];
    rest /= p.out_dims[d];
    const int n = int(p.in_dims[d]);
    int i = int(c) - p.pad_begin[d];
    if (i < 0 || i >= n) {
      if (MODE == 0u) {
        outside = true;
      } else if (MODE == 1u) {
        const int period = 2 * (n - 1);
        if (period == 0) {
          i = 0;
        } else {
          i = abs(i) % period;  // both operands non-negative
          if (i >= n) i = period - i;
        }
      } else if (MODE == 2u) {
        i = clamp(i, 0, n - 1);
      } else {
        // GLSL leaves % undefined for negative operands.
        i = i < 0 ? n - 1 - (-i - 1) % n : i % n;
      }
    }
    src += uint(i) * stride;
    stride *= uint(n);
  }
  y[idx] = outside ? p.value : x[src];
}
