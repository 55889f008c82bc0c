// SPDX-License-Identifier: Apache-2.0
// BatchNormalization's per-channel factors when the statistics are not known
// at load time (fp32): params[c] = scale[c] / sqrt(var[c] + epsilon) and
// params[channels + c] = bias[c] - mean[c] * params[c]. One invocation per
// channel; batch_normalization.comp then applies them.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(binding = 0) readonly buffer ScaleBuf { float scale[]; };
layout(binding = 1) readonly buffer BiasBuf { float bias[]; };
layout(binding = 2) readonly buffer MeanBuf { float mean[]; };
layout(binding = 3) readonly buffer VarBuf { float var[]; };
layout(binding = 4) writeonly buffer PBuf { float params[]; };

layout(push_constant) uniform Params {
  uint channels;
  float epsilon;
} p;

void main() {
  const uint c = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (c >= p.channels) return;
  const float s = scale[c] / sqrt(var[c] + p.epsilon);
  params[c] = s;
  params[p.channels + c] = bias[c] - mean[c] * s;
}
