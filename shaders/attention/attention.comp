// SPDX-License-Identifier: Apache-2.0
// ONNX Attention (opset 23), exact fp32: one invocation per query row
// r = (b * Hq + h) * S + i, against all T = past + new keys of KV head
// h / (Hq / Hkv) (GQA repeats each KV head for consecutive query heads):
//   score_j = softcap(scale * dot(Q[b,h,i], K[b,kv,j]))
//   bias_j  = mask (additive float, or bool false -> -inf; keys past the
//             mask's length -> -inf) + causal (-inf where j > i + offset)
//             + padding (-inf where j >= nonpad_kv_seqlen[b])
//   p = softmax(score + bias);  Y[b,h,i] = sum_j p_j V[b,kv,j]
// The row's scores and probabilities live in `probs` ([rows, T] scratch).
// QK (optional output [B, Hq, S, T]) holds, by QK_MODE, the scores (0, 1),
// the biased scores (2) or the probabilities (3). K and V are dense
// [B, Hkv, T, E] and [B, Hkv, T, Ev]; Q and Y are addressed through strides
// (3-D [B, S, H * E] inputs are the same tensors under other strides).
#version 450
#include "activation.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint MASK = 0;  // 0 none, 1 float, 2 bool
layout(constant_id = 4) const bool CAUSAL = false;
layout(constant_id = 5) const bool SOFTCAP = false;
layout(constant_id = 6) const bool QK_OUT = false;
layout(constant_id = 7) const uint QK_MODE = 0;
layout(constant_id = 8) const bool NONPAD = false;

layout(binding = 0) readonly buffer QBuf { float q[]; };
layout(binding = 1) readonly buffer KBuf { float k[]; };
layout(binding = 2) readonly buffer VBuf { float v[]; };
layout(binding = 3) readonly buffer MaskF { float mask_f[]; };
layout(binding = 3) readonly buffer MaskB { uint mask_b[]; };  // bool bytes
layout(binding = 4) writeonly buffer YBuf { float y[]; };
layout(binding = 5) buffer ProbBuf { float probs[]; };
layout(binding = 6) writeonly buffer QKBuf { float qk[]; };
layout(binding = 7) readonly buffer NonpadBuf { uvec2 nonpad[]; };  // int64

layout(push_constant) uniform Params {
  uint rows;                  // B * Hq * S
  uint hq, hkv, s, t;         // heads, query length, total key length
  uint e, ev;                 // head sizes of Q/K and V
  uint past;                  // keys before this block (causal offset)
  uint q_sb, q_sh, q_ss;      // Q strides of b, h, i (e is contiguous)
  uint y_sb, y_sh, y_ss;      // Y strides
  uint m_sb, m_sh, m_ss, m_st;  // mask strides over [B, Hq, S, T] (0 = broadcast)
  uint mask_len;              // the mask's last dim (<= T; later keys are masked)
  float scale;
  float softcap;
} p;

#define kNegInf uintBitsToFloat(0xFF800000u)

float MaskBias(uint b, uint h, uint i, uint j) {
  if (MASK == 0u) return 0.0;
  if (j >= p.mask_len) return kNegInf;
  const uint at = b * p.m_sb + h * p.m_sh + i * p.m_ss + j * p.m_st;
  if (MASK == 1u) return mask_f[at];
  return ((mask_b[at / 4u] >> (8u * (at % 4u))) & 0xFFu) != 0u ? 0.0 : kNegInf;
}

void main() {
  const uint r = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (r >= p.rows) return;
  const uint i = r % p.s;
  const uint h = (r / p.s) % p.hq;
  const uint b = r / (p.s * p.hq);
  const uint kv = h / (p.hq / p.hkv);
  const uint q_at = b * p.q_sb + h * p.q_sh + i * p.q_ss;
  const uint k_at = (b * p.hkv + kv) * p.t * p.e;
  const uint v_at = (b * p.hkv + kv) * p.t * p.ev;
  const uint row = r * p.t;
  uint limit = p.t;  // keys at or past it are padding
  int offset = int(p.past);
  if (NONPAD) {
    limit = min(nonpad[b].x, p.t);
    if (p.past == 0u) offset = int(limit) - int(p.s);
  }
  float m = kNegInf;
  for (uint j = 0; j < p.t; ++j) {
    float dot_qk = 0.0;
    for (uint c = 0; c < p.e; ++c) dot_qk += q[q_at + c] * k[k_at + j * p.e + c];
    float score = dot_qk * p.scale;
    if (SOFTCAP) score = p.softcap * vk_tanh(score / p.softcap);
    if (QK_OUT && QK_MODE <= 1u) qk[row + j] = score;
    float bias = MaskBias(b, h, i, j);
    if (CAUSAL && int(j) > int(i) + offset) bias = kNegInf;
    if (NONPAD && j >= limit) bias = kNegInf;
    score += bias;
    if (QK_OUT && QK_MODE == 2u) qk[row + j] = score;
    probs[row + j] = score;
    m = max(m, score);
  }
  float sum = 0.0;
  for (uint j = 0; j < p.t; ++j) {
    const float e_j = exp(probs[row + j] - m);  // all -inf: NaN, as numpy
    probs[row + j] = e_j;
    sum += e_j;
  }
  const float inv = 1.0 / sum;
  for (uint j = 0; j < p.t; ++j) {
    probs[row + j] *= inv;
    if (QK_OUT && QK_MODE == 3u) qk[row + j] = probs[row + j];
  }
  const uint y_at = b * p.y_sb + h * p.y_sh + i * p.y_ss;
  for (uint c = 0; c < p.ev; ++c) {
    float acc = 0.0;
    for (uint j = 0; j < p.t; ++j) acc += probs[row + j] * v[v_at + j * p.ev + c];
    y[y_at + c] = acc;
  }
}
