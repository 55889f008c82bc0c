// SPDX-License-Identifier: Apache-2.0
// Compress at a sync point, step 1: the positions k < len whose condition
// byte is non-zero, in order, into `sel`, and their number n into `count`
// (int64). One workgroup of LOCAL invocations, each a contiguous chunk of
// the condition; chunk offsets summed in shared memory.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
const uint LOCAL = 128;  // the workgroup size the kernel dispatches

layout(binding = 0) readonly buffer Cond { uint cond[]; };  // bool bytes
layout(binding = 1) writeonly buffer Sel { uint sel[]; };
layout(binding = 2) writeonly buffer Count { uint count[]; };

layout(push_constant) uniform Params {
  uint len;  // condition entries that select (min of its length and the axis)
} p;

shared uint offsets[LOCAL];

bool selected(uint k) { return ((cond[k / 4] >> ((k % 4) * 8)) & 0xffu) != 0u; }

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint chunk = (p.len + LOCAL - 1) / LOCAL;
  const uint begin = min(t * chunk, p.len), end = min(begin + chunk, p.len);
  uint mine = 0;
  for (uint k = begin; k < end; ++k) mine += selected(k) ? 1u : 0u;
  offsets[t] = mine;
  barrier();
  if (t == 0) {
    uint sum = 0;
    for (uint j = 0; j < LOCAL; ++j) {
      const uint c = offsets[j];
      offsets[j] = sum;
      sum += c;
    }
    count[0] = sum;
    count[1] = 0u;
  }
  barrier();
  uint pos = offsets[t];
  for (uint k = begin; k < end; ++k) {
    if (selected(k)) sel[pos++] = k;
  }
}
