// SPDX-License-Identifier: Apache-2.0
// BatchNormalization in training mode (runtime/ops/nn/batch_normalization.cc):
// one workgroup per channel computes the batch's mean and (population)
// variance of x over every element of its channel, in two passes (the
// variance sums squares about the mean, so large means lose nothing), into
// mean[c] and var[c], and with RUNNING the running statistics
// input * momentum + batch * (1 - momentum). fp32; element i of x is in
// channel (i / inner) % channels.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool RUNNING = false;

layout(binding = 0) readonly buffer XBuf { float x[]; };
layout(binding = 1) readonly buffer InMean { float in_mean[]; };
layout(binding = 2) readonly buffer InVar { float in_var[]; };
layout(binding = 3) writeonly buffer MeanBuf { float mean[]; };
layout(binding = 4) writeonly buffer VarBuf { float var[]; };
layout(binding = 5) writeonly buffer RunMean { float running_mean[]; };
layout(binding = 6) writeonly buffer RunVar { float running_var[]; };

layout(push_constant) uniform Params {
  uint batch;
  uint channels;
  uint inner;
  float momentum;
} p;

shared float partial[gl_WorkGroupSize.x];

// The workgroup's sum of `v`, in every invocation.
float WorkgroupSum(float v) {
  partial[gl_LocalInvocationID.x] = v;
  barrier();
  for (uint stride = gl_WorkGroupSize.x / 2u; stride > 0u; stride /= 2u) {
    if (gl_LocalInvocationID.x < stride) partial[gl_LocalInvocationID.x] += partial[gl_LocalInvocationID.x + stride];
    barrier();
  }
  const float total = partial[0];
  barrier();  // before `partial` is written again
  return total;
}

void main() {
  const uint c = gl_WorkGroupID.x;
  const uint count = p.batch * p.inner;
  float sum = 0.0;
  for (uint j = gl_LocalInvocationID.x; j < count; j += gl_WorkGroupSize.x) {
    sum += x[((j / p.inner) * p.channels + c) * p.inner + j % p.inner];
  }
  const float m = WorkgroupSum(sum) / float(count);
  float squares = 0.0;
  for (uint j = gl_LocalInvocationID.x; j < count; j += gl_WorkGroupSize.x) {
    const float d = x[((j / p.inner) * p.channels + c) * p.inner + j % p.inner] - m;
    squares += d * d;
  }
  const float v = WorkgroupSum(squares) / float(count);
  if (gl_LocalInvocationID.x == 0u) {
    mean[c] = m;
    var[c] = v;
    if (RUNNING) {
      running_mean[c] = in_mean[c] * p.momentum + m * (1.0 - p.momentum);
      running_var[c] = in_var[c] * p.momentum + v * (1.0 - p.momentum);
    }
  }
}
