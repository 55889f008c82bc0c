// SPDX-License-Identifier: Apache-2.0
// BatchNormalization at inference (fp32), with the per-channel statistics
// already folded into y = x * scale[c] + shift[c]. params holds `channels`
// scales then `channels` shifts; element i is in channel (i / inner) %
// channels. VEC4 (inner a multiple of 4): four elements of one channel per
// invocation. Invocation index as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool VEC4 = false;

layout(binding = 0) readonly buffer XBuf { float x[]; };
layout(binding = 0) readonly buffer X4Buf { vec4 x4[]; };
layout(binding = 1) readonly buffer PBuf { float params[]; };
layout(binding = 2) writeonly buffer YBuf { float y[]; };
layout(binding = 2) writeonly buffer Y4Buf { vec4 y4[]; };

layout(push_constant) uniform Params {
  uint n;         // elements (VEC4: invocations, n / 4)
  uint inner;     // elements per channel run (VEC4: in vec4s)
  uint channels;
} p;

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.n) return;
  const uint c = (i / p.inner) % p.channels;
  const float scale = params[c];
  const float shift = params[p.channels + c];
  if (VEC4) {
    y4[i] = x4[i] * scale + shift;
  } else {
    y[i] = x[i] * scale + shift;
  }
}
