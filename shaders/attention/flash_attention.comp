// SPDX-License-Identifier: Apache-2.0
// Fused attention, FlashAttention-2 style on scalar cores
// (runtime/kernels/attention/flash_attention.h): one workgroup per (tile of BR query rows,
// head, batch) = gl_WorkGroupID (x, y, z). The query tile (pre-scaled) sits
// in shared memory; the keys, then the values, of KV head h / (Hq / Hkv)
// stream through one shared tile BC rows at a time, and every tile is folded
// in with an online softmax (running row max m and sum l, fp32), so the
// [S, T] scores never reach memory and Y is written once:
//   s_ij = scale * dot(Q[i], K[j]) + mask(i, j)  (-inf where causal hides j)
//   m' = max(m, max_j s_ij);  O = O * exp(m - m') + sum_j exp(s_ij - m') V[j]
//   l  = l * exp(m - m') + sum_j exp(s_ij - m');  Y[i] = O / l
// Invocation (rg, cg) of the (BR / TM) x CG grid owns rows rg + RG * a
// (a < TM) of the tile, the score columns cg + CG * b (b < BC / CG) and the
// output float4 columns cg + CG * b (b < TO4): S = Q K' and O += P V are
// register-blocked mini-GEMMs over shared memory (float4 reads, rows padded
// to an odd number of float4s so the strided rows hit distinct banks). The
// row max goes through shared memory once per tile; each invocation keeps
// partial row sums over its own columns (the rescale is linear), added up
// once at the end. Each tile's global loads are issued into registers a
// phase early (V during S = Q K', the next K during O += P V) and stored
// into shared memory after the barrier, so their latency overlaps compute
// within the workgroup too. A row that sees no key gets 0 / 0 = NaN, as the exact
// kernel (ops/attention.comp), or 0 under EMPTY_ZERO (the exporters' guard
// Where(IsNaN(P), 0, P) after the softmax, fused). Q, K, V, Y are addressed
// through element strides of b, h and the row (the head dimension is
// contiguous) from an element offset, so 3-D [B, S, H * E], 4-D
// [B, H, S, E] and packed [B, S, Q|K|V] tensors need no copies; global
// reads stay scalar (no alignment is assumed). The host picks BR, BC, TM,
// CG from the device's shared memory and invocations (never a GPU's).
#version 450
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint HEAD = 64;  // head size of Q, K and V
layout(constant_id = 4) const uint BR = 32;    // query rows per workgroup
layout(constant_id = 5) const uint BC = 32;    // keys per shared-memory tile
layout(constant_id = 6) const uint TM = 4;     // rows per invocation
layout(constant_id = 7) const uint CG = 8;     // invocations per row group
layout(constant_id = 8) const uint MASK = 0;   // 0 none, 1 additive float, 2 bool
layout(constant_id = 9) const bool CAUSAL = false;
layout(constant_id = 10) const bool EMPTY_ZERO = false;  // a row that sees no key is 0, not NaN

const uint RG = BR / TM;                    // row groups (workgroup size RG * CG)
const uint TN = BC / CG;                    // score columns per invocation
const uint HEAD4 = (HEAD + 3u) / 4u;        // float4s per row
const uint TO4 = (HEAD4 + CG - 1u) / CG;    // output float4s per invocation and row
const uint QS4 = HEAD4 | 1u;                // padded row stride of q_s and kv_s, float4s
const uint BC4 = BC / 4u;
const uint PS4 = BC4 | 1u;                  // padded row stride of p_s, float4s

layout(binding = 0) readonly buffer QBuf { float q[]; };
layout(binding = 1) readonly buffer KBuf { float k[]; };
layout(binding = 2) readonly buffer VBuf { float v[]; };
layout(binding = 3) readonly buffer MaskF { float mask_f[]; };
layout(binding = 3) readonly buffer MaskB { uint mask_b[]; };  // bool bytes
layout(binding = 4) writeonly buffer YBuf { float y[]; };

#include "flash_attention_params.glsl"

#define kNegInf uintBitsToFloat(0xFF800000u)

shared vec4 q_s[BR * QS4];   // the query tile, scaled
shared vec4 kv_s[BC * QS4];  // the key tile, then the value tile
// exp(s - m) of the tile: scalars, as each invocation writes strided
// columns (no store into part of a shared float4); read 4 aligned at a time.
shared float p_s[BR * PS4 * 4u];
shared float red_s[BR * CG]; // partial row maxima, then partial row sums

float MaskBias(uint b, uint h, uint i, uint j) {
  if (MASK == 0u) return 0.0;
  if (j >= p.mask_len) return kNegInf;
  const uint at = b * p.m_sb + h * p.m_sh + i * p.m_ss + j * p.m_st;
  if (MASK == 1u) return mask_f[at];
  return ((mask_b[at / 4u] >> (8u * (at % 4u))) & 0xFFu) != 0u ? 0.0 : kNegInf;
}

// Element c of a row that starts at `at`, 0 past the head.
float Elem(uint which, uint at, uint c) {
  if (c >= HEAD) return 0.0;
  return which == 0u ? q[at + c] : which == 1u ? k[at + c] : v[at + c];
}

// Float4 c4 of the Q (which 0), K (1) or V (2) row at `at`, scaled by
// `mul`, 0 past the head.
vec4 Row4(uint which, uint at, uint c4, float mul) {
  const uint c = 4u * c4;
  return vec4(Elem(which, at, c), Elem(which, at, c + 1u), Elem(which, at, c + 2u),
              Elem(which, at, c + 3u)) * mul;
}

// The query tile (rows i0.., zeros past S), scaled, into q_s.
void LoadQuery(uint base, uint i0) {
  for (uint x = gl_LocalInvocationIndex; x < BR * HEAD4; x += RG * CG) {
    const uint r = x / HEAD4, c4 = x % HEAD4;
    q_s[r * QS4 + c4] = i0 + r < p.s ? Row4(0u, base + (i0 + r) * p.q_ss, c4, p.scale) : vec4(0.0);
  }
}

// Key or value rows [j0, j0 + BC) (which 1 or 2) from `base` with row
// stride `stride`, zeros past T: the float4s this invocation stores into
// kv_s (x = its index + NT * u), fetched into registers ahead of the store so
// that the loads are in flight while the tile before is computed.
const uint NT = RG * CG;
const uint STAGE = (BC * HEAD4 + NT - 1u) / NT;
vec4 stage[STAGE];

void Fetch(uint which, uint base, uint stride, uint j0) {
  [[unroll]] for (uint u = 0; u < STAGE; ++u) {
    const uint x = gl_LocalInvocationIndex + NT * u;
    const uint r = x / HEAD4;
    stage[u] = x < BC * HEAD4 && j0 + r < p.t ? Row4(which, base + (j0 + r) * stride, x % HEAD4, 1.0)
                                              : vec4(0.0);
  }
}

void Store() {
  [[unroll]] for (uint u = 0; u < STAGE; ++u) {
    const uint x = gl_LocalInvocationIndex + NT * u;
    if (x < BC * HEAD4) kv_s[(x / HEAD4) * QS4 + x % HEAD4] = stage[u];
  }
}

void main() {
  const uint rg = gl_LocalInvocationIndex / CG, cg = gl_LocalInvocationIndex % CG;
  const uint i0 = gl_WorkGroupID.x * BR;
  const uint h = gl_WorkGroupID.y, b = gl_WorkGroupID.z;
  const uint kv = h / (p.hq / p.hkv);
  const uint k_at = p.k_off + b * p.k_sb + kv * p.k_sh, v_at = p.v_off + b * p.v_sb + kv * p.v_sh;

  LoadQuery(p.q_off + b * p.q_sb + h * p.q_sh, i0);

  vec4 o[TM * TO4];
  float m[TM], l[TM];
  [[unroll]] for (uint a = 0; a < TM; ++a) {
    m[a] = kNegInf;
    l[a] = 0.0;
    [[unroll]] for (uint c = 0; c < TO4; ++c) o[a * TO4 + c] = vec4(0.0);
  }
  // Uniform over the workgroup: under the causal mask, keys past the tile's
  // last row + past are never loaded.
  uint t_end = p.t;
  if (CAUSAL) t_end = min(p.t, min(p.s, i0 + BR) + p.past);
  Fetch(1u, k_at, p.k_ss, 0u);
  for (uint j0 = 0; j0 < t_end; j0 += BC) {
    barrier();  // the previous tile's P and V are consumed (and Q is stored)
    Store();
    barrier();
    Fetch(2u, v_at, p.v_ss, j0);  // in flight during S = Q K'
    float sc[TM * TN];
    [[unroll]] for (uint x = 0; x < TM * TN; ++x) sc[x] = 0.0;
    for (uint c4 = 0; c4 < HEAD4; ++c4) {
      vec4 qv[TM];
      [[unroll]] for (uint a = 0; a < TM; ++a) qv[a] = q_s[(rg + RG * a) * QS4 + c4];
      [[unroll]] for (uint n = 0; n < TN; ++n) {
        const vec4 kv4 = kv_s[(cg + CG * n) * QS4 + c4];
        [[unroll]] for (uint a = 0; a < TM; ++a) sc[a * TN + n] += dot(qv[a], kv4);
      }
    }
    // Mask, then each row's maximum over this invocation's columns.
    [[unroll]] for (uint a = 0; a < TM; ++a) {
      const uint i = i0 + rg + RG * a;
      float row_max = kNegInf;
      [[unroll]] for (uint n = 0; n < TN; ++n) {
        const uint j = j0 + cg + CG * n;
        float val = kNegInf;
        if (i < p.s && j < p.t && !(CAUSAL && j > i + p.past)) val = sc[a * TN + n] + MaskBias(b, h, i, j);
        sc[a * TN + n] = val;
        row_max = max(row_max, val);
      }
      red_s[(rg + RG * a) * CG + cg] = row_max;
    }
    barrier();  // the row maxima are out, and the key tile is consumed
    Store();
    [[unroll]] for (uint a = 0; a < TM; ++a) {
      const uint r = rg + RG * a;
      float m_new = m[a];
      for (uint g = 0; g < CG; ++g) m_new = max(m_new, red_s[r * CG + g]);
      // Nothing seen yet: every p is 0 and O, l stay 0 (exp(-inf - -inf) is NaN).
      const float correction = m_new == kNegInf ? 1.0 : exp(m[a] - m_new);
      m[a] = m_new;
      float sum = 0.0;
      [[unroll]] for (uint n = 0; n < TN; ++n) {
        const float pj = m_new == kNegInf ? 0.0 : exp(sc[a * TN + n] - m_new);
        sum += pj;
        const uint col = cg + CG * n;
        p_s[r * PS4 * 4u + col] = pj;
      }
      l[a] = l[a] * correction + sum;
      [[unroll]] for (uint c = 0; c < TO4; ++c) o[a * TO4 + c] *= correction;
    }
    // The next key tile, in flight during O += P V.
    if (j0 + BC < t_end) Fetch(1u, k_at, p.k_ss, j0 + BC);
    barrier();  // P and the value tile are stored
    for (uint j4 = 0; j4 < BC4; ++j4) {
      vec4 pv[TM];
      [[unroll]] for (uint a = 0; a < TM; ++a) {
        const uint at = ((rg + RG * a) * PS4 + j4) * 4u;
        pv[a] = vec4(p_s[at], p_s[at + 1u], p_s[at + 2u], p_s[at + 3u]);
      }
      [[unroll]] for (uint jj = 0; jj < 4u; ++jj) {
        [[unroll]] for (uint c = 0; c < TO4; ++c) {
          const uint c4 = cg + CG * c;
          if (TO4 * CG != HEAD4 && c4 >= HEAD4) continue;
          const vec4 vv = kv_s[(4u * j4 + jj) * QS4 + c4];
          [[unroll]] for (uint a = 0; a < TM; ++a) o[a * TO4 + c] += pv[a][jj] * vv;
        }
      }
    }
  }
  // Each row's sum over all its invocations' columns.
  barrier();  // every invocation is past its last read of red_s
  [[unroll]] for (uint a = 0; a < TM; ++a) red_s[(rg + RG * a) * CG + cg] = l[a];
  barrier();
  [[unroll]] for (uint a = 0; a < TM; ++a) {
    const uint r = rg + RG * a, i = i0 + r;
    if (i >= p.s) continue;
    float sum = 0.0;
    for (uint g = 0; g < CG; ++g) sum += red_s[r * CG + g];
    const float inv = EMPTY_ZERO && sum == 0.0 ? 0.0 : 1.0 / sum;
    const uint y_at = b * p.y_sb + h * p.y_sh + i * p.y_ss;
    [[unroll]] for (uint c = 0; c < TO4; ++c) {
      const uint c4 = cg + CG * c;
      if (c4 >= HEAD4) continue;
      const vec4 val = o[a * TO4 + c] * inv;
      [[unroll]] for (uint e = 0; e < 4u; ++e) {
        if (4u * c4 + e < HEAD) y[y_at + 4u * c4 + e] = val[e];
      }
    }
  }
}
