// SPDX-License-Identifier: Apache-2.0
// ReverseSequence of 4- or 8-byte elements (WORDS 1 or 2): element i sits at
// time t and batch entry b (read through the two axes' strides); it comes
// from time lens[b] - 1 - t when t < lens[b] (lens clamped to the time
// axis), else stays.
// One invocation per element; index as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint WORDS = 1;

layout(binding = 0) readonly buffer X { uint x[]; };
layout(binding = 1) readonly buffer Lens { ivec2 lens[]; };  // int64
layout(binding = 2) writeonly buffer Y { uint y[]; };

layout(push_constant) uniform Params {
  uint n;
  uint time_len, time_stride;
  uint batch_len, batch_stride;
} p;

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.n) return;
  const uint t = (i / p.time_stride) % p.time_len;
  const uint b = (i / p.batch_stride) % p.batch_len;
  const int len = clamp(lens[b].x, 0, int(p.time_len));
  uint from = i;
  if (int(t) < len) from = i - t * p.time_stride + (uint(len - 1) - t) * p.time_stride;
  for (uint w = 0; w < WORDS; ++w) y[i * WORDS + w] = x[from * WORDS + w];
}
