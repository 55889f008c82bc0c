// SPDX-License-Identifier: Apache-2.0
// The masked softmax of the unfused attention (runtime/kernels/attention/attention_lowering.h),
// in place over the scaled scores S [B, Hq, Sq, Sk] that the GEMM engine wrote:
//
//   P[i, j] = exp(s_ij - m_i) / sum_j exp(s_ij - m_i),  s_ij = S[i, j] + mask(i, j)
//
// with the fused kernel's masks (shaders/attention/flash_attention.comp), so both
// paths agree: an additive float or a bool mask (strides over [B, Hq, Sq, Sk],
// 0 = broadcast; keys past mask_len masked), and causal (key j hidden from
// query i when j > i + past). Statistics in fp32. A row that sees no key gets
// 0 / 0 = NaN, or 0 under EMPTY_ZERO. One workgroup per row (rows run across
// gl_WorkGroupID.x and .y); gl_WorkGroupSize.x must be a power of two.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint MASK = 0;  // 0 none, 1 additive float, 2 bool
layout(constant_id = 4) const bool CAUSAL = false;
layout(constant_id = 5) const bool EMPTY_ZERO = false;

layout(binding = 0) buffer Scores { float s[]; };
layout(binding = 1) readonly buffer MaskF { float mask_f[]; };
layout(binding = 1) readonly buffer MaskB { uint mask_b[]; };  // bool bytes

layout(push_constant) uniform Params {
  uint rows;                    // B * Hq * Sq
  uint heads;                   // Hq
  uint queries;                 // Sq
  uint keys;                    // Sk
  uint past;                    // causal offset
  uint m_sb, m_sh, m_ss, m_st;  // mask strides
  uint mask_len;                // the mask's last dim
} p;

#define kNegInf uintBitsToFloat(0xFF800000u)
#define kNaN uintBitsToFloat(0x7FC00000u)

shared float part_max[gl_WorkGroupSize.x];
shared float part_sum[gl_WorkGroupSize.x];

// Score j of row (b, h, i) with its mask applied; -inf where hidden.
float Masked(uint at, uint b, uint h, uint i, uint j) {
  if (CAUSAL && j > i + p.past) return kNegInf;
  const float v = s[at];
  if (MASK == 0u) return v;
  if (j >= p.mask_len) return kNegInf;
  const uint m = b * p.m_sb + h * p.m_sh + i * p.m_ss + j * p.m_st;
  if (MASK == 1u) return v + mask_f[m];
  return ((mask_b[m / 4u] >> (8u * (m % 4u))) & 0xFFu) != 0u ? v : kNegInf;
}

// Folds v into the running (m, sum); -inf adds nothing (exp(-inf - -inf) is NaN).
void Accumulate(inout float m, inout float sum, float v) {
  if (v == kNegInf) return;
  if (v > m) {
    sum = sum * exp(m - v) + 1.0;
    m = v;
  } else {
    sum += exp(v - m);
  }
}

void main() {
  const uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  const uint tid = gl_LocalInvocationID.x;
  const bool in_range = row < p.rows;  // uniform over the workgroup
  const uint i = row % p.queries;
  const uint h = (row / p.queries) % p.heads;
  const uint b = row / (p.queries * p.heads);
  const uint base = row * p.keys;
  float m = kNegInf, sum = 0.0;
  if (in_range) {
    for (uint j = tid; j < p.keys; j += gl_WorkGroupSize.x) Accumulate(m, sum, Masked(base + j, b, h, i, j));
  }
  part_max[tid] = m;
  part_sum[tid] = sum;
  barrier();
  for (uint half_size = gl_WorkGroupSize.x / 2; half_size > 0; half_size >>= 1) {
    if (tid < half_size) {
      const float m1 = part_max[tid], m2 = part_max[tid + half_size];
      const float mm = max(m1, m2);
      if (mm != kNegInf) {
        part_sum[tid] = part_sum[tid] * exp(m1 - mm) + part_sum[tid + half_size] * exp(m2 - mm);
      }
      part_max[tid] = mm;
    }
    barrier();
  }
  if (!in_range) return;
  const float row_max = part_max[0];
  const float inv = 1.0 / part_sum[0];
  for (uint j = tid; j < p.keys; j += gl_WorkGroupSize.x) {
    float prob;
    if (row_max == kNegInf) {
      prob = EMPTY_ZERO ? 0.0 : kNaN;
    } else {
      const float v = Masked(base + j, b, h, i, j);
      prob = v == kNegInf ? 0.0 : exp(v - row_max) * inv;
    }
    s[base + j] = prob;
  }
}
