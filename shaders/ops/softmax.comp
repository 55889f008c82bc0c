// SPDX-License-Identifier: Apache-2.0
// Softmax, LogSoftmax and Hardmax (fp32, MODE 0/1/2 as
// runtime/ops/math/softmax_op.h SoftmaxOp::Kind) along one axis of a tensor seen
// as [outer, axis, inner]:
// row (o, i) holds the `axis` elements at o * axis * inner + k * inner + i.
// Numerically stable: an online pass keeps the running max m and the sum of
// exp(x - m) rescaled as m grows, then a second pass writes exp(x - m) / sum.
//
// PER_THREAD false: one workgroup per row (inner == 1 rows are contiguous),
//   the (m, sum) pairs combined in a shared-memory tree; gl_WorkGroupSize.x
//   must be a power of two. Rows run across gl_WorkGroupID.x and .y.
// PER_THREAD true: one invocation per row, for inner > 1, where neighbouring
//   invocations read neighbouring addresses. Rows are numbered as in
//   op_util.h GroupsFor. Hardmax always runs so (its tie-break is the first
//   maximum).
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool PER_THREAD = false;
layout(constant_id = 4) const uint MODE = 0;

layout(binding = 0) readonly buffer XBuf { float x[]; };
layout(binding = 1) writeonly buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
  uint rows;   // outer * inner
  uint axis;   // elements per row
  uint inner;  // stride between a row's elements
} p;

// Finite, so that exp(kLowest - m) is 0 rather than exp(NaN) for empty
// partials and rows holding -inf.
const float kLowest = -3.402823466e38;

shared float part_max[gl_WorkGroupSize.x];
shared float part_sum[gl_WorkGroupSize.x];

uint RowBase(uint row) { return (row / p.inner) * p.axis * p.inner + row % p.inner; }

// Folds value v into the running (m, s).
void Accumulate(inout float m, inout float s, float v) {
  if (v > m) {
    s = s * exp(m - v) + 1.0;
    m = v;
  } else {
    s += exp(v - m);
  }
}

// Row element x[at] normalized by the row's max m and sum s.
float Normalized(uint at, float m, float s) {
  if (MODE == 1) return x[at] - m - log(s);
  return exp(x[at] - m) / s;
}

void Hardmax(uint base) {
  uint best = 0;
  for (uint k = 1; k < p.axis; ++k) {
    if (x[base + k * p.inner] > x[base + best * p.inner]) best = k;
  }
  for (uint k = 0; k < p.axis; ++k) y[base + k * p.inner] = k == best ? 1.0 : 0.0;
}

void PerThread() {
  const uint row = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (row >= p.rows) return;
  const uint base = RowBase(row);
  if (MODE == 2) {
    Hardmax(base);
    return;
  }
  float m = kLowest, s = 0.0;
  for (uint k = 0; k < p.axis; ++k) Accumulate(m, s, x[base + k * p.inner]);
  for (uint k = 0; k < p.axis; ++k) {
    const uint at = base + k * p.inner;
    y[at] = Normalized(at, m, s);
  }
}

void PerWorkgroup() {
  const uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  const uint tid = gl_LocalInvocationID.x;
  const bool in_range = row < p.rows;  // uniform over the workgroup
  const uint base = in_range ? RowBase(row) : 0;
  float m = kLowest, s = 0.0;
  if (in_range) {
    for (uint k = tid; k < p.axis; k += gl_WorkGroupSize.x) Accumulate(m, s, x[base + k * p.inner]);
  }
  part_max[tid] = m;
  part_sum[tid] = s;
  barrier();
  for (uint half_size = gl_WorkGroupSize.x / 2; half_size > 0; half_size >>= 1) {
    if (tid < half_size) {
      const float m1 = part_max[tid], m2 = part_max[tid + half_size];
      const float mm = max(m1, m2);
      part_sum[tid] = part_sum[tid] * exp(m1 - mm) + part_sum[tid + half_size] * exp(m2 - mm);
      part_max[tid] = mm;
    }
    barrier();
  }
  if (!in_range) return;
  const float row_max = part_max[0];
  const float row_sum = part_sum[0];
  for (uint k = tid; k < p.axis; k += gl_WorkGroupSize.x) {
    const uint at = base + k * p.inner;
    y[at] = Normalized(at, row_max, row_sum);
  }
}

void main() {
  if (PER_THREAD) {
    PerThread();
  } else {
    PerWorkgroup();
  }
}
