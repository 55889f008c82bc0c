// SPDX-License-Identifier: Apache-2.0
// AttentionMask (runtime/ops/llm/attention_mask.cc): masks attention scores
// [B, N, S, T] the way ONNX Runtime's CPU attention kernels do. A position
// hidden by the causal mask becomes the lowest float (assigned, as ORT does);
// one hidden by the padding mask gets `filter_value` added (to the scaled
// score, as ORT adds its mask). The padding mask is
// int32 in one of the forms of FORM:
//   0: none
//   1: [B] exclusive end positions (right-side padding)
//   2: [2B] end positions, then inclusive start positions (left-side padding)
//   3: [B, T] raw 0/1 mask
//   4: [B, S, T] raw 0/1 mask
// Elements are numbered as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(binding = 0) readonly buffer XBuf { float x[]; };
layout(binding = 1) readonly buffer MBuf { int m[]; };
layout(binding = 2) writeonly buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
  uint count;    // B * N * S * T
  uint heads;    // N
  uint seq;      // S
  uint total;    // T
  uint batch;    // B
  uint form;     // see above
  uint causal;   // 1: key t is hidden from query s when t > s + past
  uint past;     // keys before the queries' own (a past state's length)
  float filter_value;  // added where the padding mask hides a key
} p;

const float kLowest = -3.402823466e38;

bool PaddingHides(uint b, uint s, uint t) {
  if (p.form == 1u || p.form == 2u) {
    if (int(t) >= m[b]) return true;
    return p.form == 2u && int(t) < m[p.batch + b];
  }
  if (p.form == 3u) return m[b * p.total + t] <= 0;
  if (p.form == 4u) return m[(b * p.seq + s) * p.total + t] <= 0;
  return false;
}

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  if (i >= p.count) return;
  const uint t = i % p.total;
  const uint row = i / p.total;  // (b * N + n) * S + s
  const uint s = row % p.seq;
  const uint b = row / (p.seq * p.heads);
  if (p.causal != 0u && t > s + p.past) {
    y[i] = kLowest;
    return;
  }
  y[i] = PaddingHides(b, s, t) ? x[i] + p.filter_value : x[i];
}
