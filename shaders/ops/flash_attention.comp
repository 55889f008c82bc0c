// SPDX-License-Identifier: Apache-2.0
// Fused attention, flash-attention style (runtime/ops/flash_attention.h):
// one workgroup per (query tile, head, batch) = gl_WorkGroupID (x, y, z),
// one invocation per query row i of the tile. The workgroup streams the keys
// and values of KV head h / (Hq / Hkv) through shared memory BK at a time;
// each invocation keeps its query row (pre-scaled) and its output row in
// registers and folds every tile in with an online softmax (running max m
// and sum l, fp32), so the [S, T] scores never reach memory and Y is written
// once:
//   score_j = scale * dot(Q[i], K[j]) + mask(i, j)  (-inf where causal hides j)
//   m' = max(m, max_j score_j);  acc = acc * exp(m - m') + sum_j exp(score_j - m') V[j]
//   l  = l * exp(m - m') + sum_j exp(score_j - m');  Y[i] = acc / l
// A row that sees no key gets 0 / 0 = NaN, as the exact kernel
// (ops/attention.comp), or 0 under EMPTY_ZERO (the exporters' guard
// Where(IsNaN(P), 0, P) after the softmax, fused). Q, K, V, Y are addressed through element strides of
// b, h and the row (the head dimension is contiguous) from an element
// offset, so 3-D [B, S, H * E], 4-D [B, H, S, E] and packed [B, S, Q|K|V]
// tensors need no copies. HEAD (the head size, Q's and
// V's alike) and BK size the register and shared arrays: the host picks BK
// from the device's shared memory (never assuming a GPU's). The loops over a
// tile's keys stay loops: fully unrolled (HEAD x BK bodies) they cost
// lavapipe's LLVM tens of seconds per pipeline.
#version 450
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint HEAD = 64;  // head size of Q, K and V
layout(constant_id = 4) const uint BK = 16;    // keys per shared-memory tile
layout(constant_id = 5) const uint MASK = 0;   // 0 none, 1 additive float, 2 bool
layout(constant_id = 6) const bool CAUSAL = false;
layout(constant_id = 7) const bool EMPTY_ZERO = false;  // a row that sees no key is 0, not NaN

layout(binding = 0) readonly buffer QBuf { float q[]; };
layout(binding = 1) readonly buffer KBuf { float k[]; };
layout(binding = 2) readonly buffer VBuf { float v[]; };
layout(binding = 3) readonly buffer MaskF { float mask_f[]; };
layout(binding = 3) readonly buffer MaskB { uint mask_b[]; };  // bool bytes
layout(binding = 4) writeonly buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
  uint hq, hkv, s, t;           // query heads, KV heads, query rows, keys
  uint past;                    // causal offset: row i sees keys j <= i + past
  uint q_sb, q_sh, q_ss;        // element strides of b, h, row
  uint k_sb, k_sh, k_ss;
  uint v_sb, v_sh, v_ss;
  uint y_sb, y_sh, y_ss;
  uint m_sb, m_sh, m_ss, m_st;  // mask strides over [B, Hq, S, T] (0 = broadcast)
  uint mask_len;                // the mask's last dim (<= T; later keys are masked)
  float scale;
  uint q_off, k_off, v_off;     // element offsets of Q, K, V (packed Q/K/V share a buffer)
} p;

#define kNegInf uintBitsToFloat(0xFF800000u)

shared float k_tile[BK * HEAD];
shared float v_tile[BK * HEAD];

float MaskBias(uint b, uint h, uint i, uint j) {
  if (MASK == 0u) return 0.0;
  if (j >= p.mask_len) return kNegInf;
  const uint at = b * p.m_sb + h * p.m_sh + i * p.m_ss + j * p.m_st;
  if (MASK == 1u) return mask_f[at];
  return ((mask_b[at / 4u] >> (8u * (at % 4u))) & 0xFFu) != 0u ? 0.0 : kNegInf;
}

void LoadTile(uint j0, uint k_at, uint v_at) {
  for (uint x = gl_LocalInvocationID.x; x < BK * HEAD; x += gl_WorkGroupSize.x) {
    const uint j = j0 + x / HEAD, c = x % HEAD;
    k_tile[x] = j < p.t ? k[k_at + j * p.k_ss + c] : 0.0;
    v_tile[x] = j < p.t ? v[v_at + j * p.v_ss + c] : 0.0;
  }
}

void main() {
  const uint rows = gl_WorkGroupSize.x;
  const uint i = gl_WorkGroupID.x * rows + gl_LocalInvocationID.x;
  const uint h = gl_WorkGroupID.y, b = gl_WorkGroupID.z;
  const uint kv = h / (p.hq / p.hkv);
  const bool live = i < p.s;
  const uint k_at = p.k_off + b * p.k_sb + kv * p.k_sh, v_at = p.v_off + b * p.v_sb + kv * p.v_sh;

  float qr[HEAD];
  float acc[HEAD];
  for (uint c = 0; c < HEAD; ++c) {
    qr[c] = live ? q[p.q_off + b * p.q_sb + h * p.q_sh + i * p.q_ss + c] * p.scale : 0.0;
    acc[c] = 0.0;
  }
  float m = kNegInf, l = 0.0;
  // Uniform over the workgroup: under the causal mask, keys past the tile's
  // last row + past are never loaded.
  uint t_end = p.t;
  if (CAUSAL) t_end = min(p.t, min(p.s, gl_WorkGroupID.x * rows + rows) + p.past);
  for (uint j0 = 0; j0 < t_end; j0 += BK) {
    barrier();  // the previous tile is consumed
    LoadTile(j0, k_at, v_at);
    barrier();
    if (!live) continue;
    float score[BK];
    float tile_max = kNegInf;
    [[dont_unroll]] for (uint jj = 0; jj < BK; ++jj) {
      const uint j = j0 + jj;
      float sc = kNegInf;
      if (j < p.t && !(CAUSAL && j > i + p.past)) {
        float dot_qk = 0.0;
        for (uint c = 0; c < HEAD; ++c) dot_qk += qr[c] * k_tile[jj * HEAD + c];
        sc = dot_qk + MaskBias(b, h, i, j);
      }
      score[jj] = sc;
      tile_max = max(tile_max, sc);
    }
    const float m_new = max(m, tile_max);
    if (m_new == kNegInf) continue;  // nothing seen yet: exp(-inf - -inf) is NaN
    const float correction = exp(m - m_new);
    l *= correction;
    for (uint c = 0; c < HEAD; ++c) acc[c] *= correction;
    [[dont_unroll]] for (uint jj = 0; jj < BK; ++jj) {
      const float pj = exp(score[jj] - m_new);
      l += pj;
      for (uint c = 0; c < HEAD; ++c) acc[c] += pj * v_tile[jj * HEAD + c];
    }
    m = m_new;
  }
  if (!live) return;
  const float inv = EMPTY_ZERO && l == 0.0 ? 0.0 : 1.0 / l;
  const uint y_at = b * p.y_sb + h * p.y_sh + i * p.y_ss;
  for (uint c = 0; c < HEAD; ++c) y[y_at + c] = acc[c] * inv;
}
