// SPDX-License-Identifier: Apache-2.0
// The Reduce* ops over any set of axes, fp32. The input is seen through
// strides as [kept..., reduced...] (up to 3 kept and 6 reduced dims after
// merging). OP (runtime/ops/reduction/reduce_op.h ReduceOp::Kind): 0 mean, 1 sum, 2 max,
// 3 min, 4 prod, 5 L1, 6 L2, 7 log-sum, 8 log-sum-exp (a max pass first, so
// exp never overflows), 9 sum of squares.
// PER_THREAD false: one workgroup per output element sums its reduced
//   elements with strided loads and a shared-memory tree (gl_WorkGroupSize.x
//   a power of two); outputs run across gl_WorkGroupID.x and .y.
// PER_THREAD true: one invocation per output element loops over them, for
//   when the innermost dim is kept, so neighbouring invocations read
//   neighbouring addresses; outputs numbered as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool PER_THREAD = false;
layout(constant_id = 4) const uint OP = 0;

#define OP_MEAN 0u
#define OP_MAX 2u
#define OP_MIN 3u
#define OP_PROD 4u
#define OP_L1 5u
#define OP_L2 6u
#define OP_LOG_SUM 7u
#define OP_LOG_SUM_EXP 8u
#define OP_SUM_SQUARE 9u

#define kInf uintBitsToFloat(0x7F800000u)

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
  uint outputs;        // number of output elements
  uint reduced;        // elements reduced per output
  uint kept_rank;
  uint reduced_rank;
  uint kept_dims[3];
  uint kept_strides[3];
  uint reduced_dims[6];
  uint reduced_strides[6];
} p;

shared float partial[gl_WorkGroupSize.x];

#include "strided_offsets.glsl"

// The combining step of a pass: max for the max pass (`max_pass`), else
// OP's own.
float Combine(bool max_pass, float a, float b) {
  if (max_pass || OP == OP_MAX) return max(a, b);
  if (OP == OP_MIN) return min(a, b);
  if (OP == OP_PROD) return a * b;
  return a + b;
}

float Identity(bool max_pass) {
  if (max_pass || OP == OP_MAX) return -kInf;
  if (OP == OP_MIN) return kInf;
  if (OP == OP_PROD) return 1.0;
  return 0.0;
}

// Element v as the pass accumulates it; `shift` is the max of log-sum-exp.
float Pre(bool max_pass, float v, float shift) {
  if (max_pass) return v;
  if (OP == OP_L1) return abs(v);
  if (OP == OP_L2 || OP == OP_SUM_SQUARE) return v * v;
  if (OP == OP_LOG_SUM_EXP) return exp(v - shift);
  return v;
}

float Post(float acc, float shift) {
  if (OP == OP_MEAN) return acc / float(p.reduced);
  if (OP == OP_L2) return sqrt(acc);
  if (OP == OP_LOG_SUM) return log(acc);
  if (OP == OP_LOG_SUM_EXP) return isinf(shift) ? shift : shift + log(acc);
  return acc;
}

float ThreadPass(uint base, bool max_pass, float shift) {
  float acc = Identity(max_pass);
  for (uint r = 0; r < p.reduced; ++r) {
    acc = Combine(max_pass, acc, Pre(max_pass, x[base + ReducedOffset(r)], shift));
  }
  return acc;
}

void PerThread() {
  const uint o = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (o >= p.outputs) return;
  const uint base = KeptOffset(o);
  const float shift = OP == OP_LOG_SUM_EXP ? ThreadPass(base, true, 0.0) : 0.0;
  y[o] = Post(ThreadPass(base, false, shift), shift);
}

// Every invocation of the workgroup returns the pass's result.
float GroupPass(uint o, uint base, bool max_pass, float shift) {
  const uint tid = gl_LocalInvocationID.x;
  float acc = Identity(max_pass);
  if (o < p.outputs) {
    for (uint r = tid; r < p.reduced; r += gl_WorkGroupSize.x) {
      acc = Combine(max_pass, acc, Pre(max_pass, x[base + ReducedOffset(r)], shift));
    }
  }
  partial[tid] = acc;
  barrier();
  for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
    if (tid < s) partial[tid] = Combine(max_pass, partial[tid], partial[tid + s]);
    barrier();
  }
  const float result = partial[0];
  barrier();  // partial is reused by the next pass
  return result;
}

void PerWorkgroup() {
  const uint o = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  const uint base = o < p.outputs ? KeptOffset(o) : 0;
  const float shift = OP == OP_LOG_SUM_EXP ? GroupPass(o, base, true, 0.0) : 0.0;
  const float acc = GroupPass(o, base, false, shift);
  if (gl_LocalInvocationID.x == 0 && o < p.outputs) y[o] = Post(acc, shift);
}

void main() {
  if (PER_THREAD) {
    PerThread();
  } else {
    PerWorkgroup();
  }
}
