// SPDX-License-Identifier: Apache-2.0
// ReduceMean over any set of axes, fp32. The input is seen through strides as
// [kept..., reduced...] (up to 3 kept and 6 reduced dims after merging).
// PER_THREAD false: one workgroup per output element sums its reduced
//   elements with strided loads and a shared-memory tree (gl_WorkGroupSize.x
//   a power of two); outputs run across gl_WorkGroupID.x and .y.
// PER_THREAD true: one invocation per output element loops over them, for
//   when the innermost dim is kept, so neighbouring invocations read
//   neighbouring addresses; outputs numbered as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool PER_THREAD = false;

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
  uint outputs;        // number of output elements
  uint reduced;        // elements averaged per output
  uint kept_rank;
  uint reduced_rank;
  uint kept_dims[3];
  uint kept_strides[3];
  uint reduced_dims[6];
  uint reduced_strides[6];
} p;

shared float partial[gl_WorkGroupSize.x];

uint KeptOffset(uint o) {
  uint off = 0;
  for (int d = int(p.kept_rank) - 1; d >= 0; --d) {
    off += (o % p.kept_dims[d]) * p.kept_strides[d];
    o /= p.kept_dims[d];
  }
  return off;
}

uint ReducedOffset(uint r) {
  uint off = 0;
  for (int d = int(p.reduced_rank) - 1; d >= 0; --d) {
    off += (r % p.reduced_dims[d]) * p.reduced_strides[d];
    r /= p.reduced_dims[d];
  }
  return off;
}

void PerThread() {
  const uint o = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (o >= p.outputs) return;
  const uint base = KeptOffset(o);
  float acc = 0.0;
  for (uint r = 0; r < p.reduced; ++r) acc += x[base + ReducedOffset(r)];
  y[o] = acc / float(p.reduced);
}

void PerWorkgroup() {
  const uint o = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  const uint tid = gl_LocalInvocationID.x;
  float acc = 0.0;
  if (o < p.outputs) {
    const uint base = KeptOffset(o);
    for (uint r = tid; r < p.reduced; r += gl_WorkGroupSize.x) acc += x[base + ReducedOffset(r)];
  }
  partial[tid] = acc;
  barrier();
  for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
    if (tid < s) partial[tid] += partial[tid + s];
    barrier();
  }
  if (tid == 0 && o < p.outputs) y[o] = partial[0] / float(p.reduced);
}

void main() {
  if (PER_THREAD) {
    PerThread();
  } else {
    PerWorkgroup();
  }
}
