// SPDX-License-Identifier: Apache-2.0
// The loads both tensor-core flash attentions share: Q, K and V rows read
// from their tensors (flash_attention_cm_io.glsl's bindings) into fp16 tiles
// of shared memory (rows of LD halves), the next key tile prefetched into
// registers, and the mask's bias. The includer declares EP, BC, BR, THREADS,
// LD, KV_UNITS, Q_UNITS, the shared arrays q_sh, k_sh and v_sh (uvec4) and
// pack2 (two floats as fp16), then includes this file.
#ifndef VKSERVE_FLASH_ATTENTION_CM_LOADS_GLSL_
#define VKSERVE_FLASH_ATTENTION_CM_LOADS_GLSL_

// ---- Global loads: 8 consecutive head elements of one row, as fp16 ----
// Element c of the Q (which 0), K (1) or V (2) row at `at`, 0 past the head.
float elem(uint which, uint at, uint c) {
  if (c >= HEAD) return 0.0;
  const uint i = at + c;
  return float(which == 0u ? q[i] : which == 1u ? k[i] : v[i]);
}
vec4 elem4(uint which, uint at, uint c) {
  if (VEC4) {
    if (c >= HEAD) return vec4(0.0);
    const uint i = (at + c) / 4u;
    return vec4(which == 0u ? q4[i] : which == 1u ? k4[i] : v4[i]);
  }
  return vec4(elem(which, at, c), elem(which, at, c + 1u), elem(which, at, c + 2u), elem(which, at, c + 3u));
}
// 8 elements as loaded, and as stored into shared memory (fp16).
struct F8 {
  vec4 lo, hi;
};
F8 load_unit(uint which, uint at, uint c) { return F8(elem4(which, at, c), elem4(which, at, c + 4u)); }
uvec4 pack8(F8 v, float mul) {
  const vec4 lo = v.lo * mul, hi = v.hi * mul;
  return uvec4(pack2(lo.xy), pack2(lo.zw), pack2(hi.xy), pack2(hi.zw));
}

// The next tile's keys and values as loaded: converted only when stored, so
// that nothing waits for the loads before the tile in between is computed.
// fp16 tensors keep their bytes (KvUnit is 8 halves as stored: half the
// registers of 8 floats, and no conversion either way); fp32 ones are
// rounded to fp16 at the store.
#if VKSERVE_F16
layout(binding = 1) readonly buffer KBuf2 { uvec2 k2[]; };
layout(binding = 2) readonly buffer VBuf2 { uvec2 v2[]; };
#define KvUnit uvec4
KvUnit kv_zero() { return uvec4(0); }
// 4 halves of the K (1) or V (2) row at `at` from column c (VEC4: all in or
// all past the head).
uvec2 kv_raw4(uint which, uint at, uint c) {
  if (c >= HEAD) return uvec2(0);
  const uint i = (at + c) / 4u;
  return which == 1u ? k2[i] : v2[i];
}
KvUnit kv_load(uint which, uint at, uint c) {
  if (VEC4) return uvec4(kv_raw4(which, at, c), kv_raw4(which, at, c + 4u));
  return pack8(load_unit(which, at, c), 1.0);
}
uvec4 kv_pack(KvUnit v) { return v; }
#else
#define KvUnit F8
KvUnit kv_zero() { return F8(vec4(0.0), vec4(0.0)); }
KvUnit kv_load(uint which, uint at, uint c) { return load_unit(which, at, c); }
uvec4 kv_pack(KvUnit v) { return pack8(v, 1.0); }
#endif
KvUnit k_st[KV_UNITS];
KvUnit v_st[KV_UNITS];

// Keys and values [j0, j0 + BC) into registers, zeros past T.
void fetch_kv(uint k_at, uint v_at, uint j0) {
  [[unroll]] for (uint u = 0; u < KV_UNITS; ++u) {
    const uint x = gl_LocalInvocationID.x + THREADS * u;
    const uint r = x / (EP / 8u), c = (x % (EP / 8u)) * 8u;
    const bool in_t = j0 + r < p.t;
    k_st[u] = in_t ? kv_load(1u, k_at + (j0 + r) * p.k_ss, c) : kv_zero();
    v_st[u] = in_t ? kv_load(2u, v_at + (j0 + r) * p.v_ss, c) : kv_zero();
  }
}
void store_kv() {
  [[unroll]] for (uint u = 0; u < KV_UNITS; ++u) {
    const uint x = gl_LocalInvocationID.x + THREADS * u;
    const uint at = (x / (EP / 8u)) * LD + (x % (EP / 8u)) * 8u;
    k_sh[at / 8u] = kv_pack(k_st[u]);
    v_sh[at / 8u] = kv_pack(v_st[u]);
  }
}

float mask_bias(uint b, uint h, uint i, uint j) {
  if (MASK == 0u) return 0.0;
  if (j >= p.mask_len) return kNegInf;
  const uint at = b * p.m_sb + h * p.m_sh + i * p.m_ss + j * p.m_st;
  if (MASK == 1u) return float(mask_f[at]);
  return ((mask_b[at / 4u] >> (8u * (at % 4u))) & 0xFFu) != 0u ? 0.0 : kNegInf;
}

// The query tile [i0, i0 + BR) of the head at `q_at`, times `scale` and
// rounded to fp16 into q_sh (zeros past S).
void store_q_tile(uint q_at, uint i0, float scale) {
  [[unroll]] for (uint u = 0; u < Q_UNITS; ++u) {
    const uint x = gl_LocalInvocationID.x + THREADS * u;
    const uint qr = x / (EP / 8u), c = (x % (EP / 8u)) * 8u;
    q_sh[(qr * LD + c) / 8u] = i0 + qr < p.s ? pack8(load_unit(0u, q_at + (i0 + qr) * p.q_ss, c), scale) : uvec4(0);
  }
}

#endif  // VKSERVE_FLASH_ATTENTION_CM_LOADS_GLSL_
