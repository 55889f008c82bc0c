// SPDX-License-Identifier: Apache-2.0
// NegativeLogLikelihoodLoss (fp32) on log-probabilities x seen as
// [N, C, D] (D the product of the trailing dims) and int64 targets [N, D].
// PASS 0, one invocation per target element i = n * D + d:
//   loss[i] = target == ignore_index ? 0 : -x[n, target, d] * w[target]
//   wsum[i] = the weight that element counts with (0 when ignored)
// PASS 1, one workgroup (a power of two): out[0] = sum(loss), divided by
//   sum(wsum) when MEAN.
// Targets outside [0, C) that are not ignored are clamped (ONNX leaves them
// undefined; vkserve never reads out of bounds).
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint PASS = 0;
layout(constant_id = 4) const bool HAS_WEIGHT = false;
layout(constant_id = 5) const bool MEAN = false;

layout(binding = 0) readonly buffer XBuf { float x[]; };        // PASS 0
layout(binding = 1) readonly buffer TBuf { uvec2 target[]; };   // PASS 0: int64
layout(binding = 2) readonly buffer WBuf { float w[]; };        // PASS 0
layout(binding = 3) buffer LossBuf { float loss[]; };
layout(binding = 4) buffer WsumBuf { float wsum[]; };
layout(binding = 5) writeonly buffer OutBuf { float out_value[]; };  // PASS 1

layout(push_constant) uniform Params {
  uint n;        // target elements (N * D)
  uint classes;  // C
  uint inner;    // D
  uint has_ignore;
  uvec2 ignore;  // int64 ignore_index as (lo, hi)
} p;

shared float part_loss[gl_WorkGroupSize.x];
shared float part_w[gl_WorkGroupSize.x];

void Elementwise() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.n) return;
  const uvec2 t = target[i];
  if (p.has_ignore != 0u && t == p.ignore) {
    loss[i] = 0.0;
    wsum[i] = 0.0;
    return;
  }
  const bool negative = int(t.y) < 0;
  const uint c = negative ? 0u : (t.y != 0u ? p.classes - 1u : min(t.x, p.classes - 1u));
  const float weight = HAS_WEIGHT ? w[c] : 1.0;
  const uint at = (i / p.inner) * p.classes * p.inner + c * p.inner + i % p.inner;
  loss[i] = -x[at] * weight;
  wsum[i] = weight;
}

void Reduce() {
  const uint tid = gl_LocalInvocationID.x;
  float l = 0.0, s = 0.0;
  for (uint i = tid; i < p.n; i += gl_WorkGroupSize.x) {
    l += loss[i];
    s += wsum[i];
  }
  part_loss[tid] = l;
  part_w[tid] = s;
  barrier();
  for (uint h = gl_WorkGroupSize.x / 2; h > 0; h >>= 1) {
    if (tid < h) {
      part_loss[tid] += part_loss[tid + h];
      part_w[tid] += part_w[tid + h];
    }
    barrier();
  }
  if (tid == 0) out_value[0] = MEAN ? part_loss[0] / part_w[0] : part_loss[0];
}

void main() {
  if (PASS == 0) {
    Elementwise();
  } else {
    Reduce();
  }
}
