// SPDX-License-Identifier: Apache-2.0
// Fused attention on tensor cores with the online softmax in registers: the
// form of flash_attention_cm.glsl (same tiles, bindings, push constants and
// masks) for devices whose matrix fragments have the element layout below,
// which a probe confirms before a plan may run it natively
// (runtime/kernels/tensor_core_layout.h). Each lane reads its scores straight
// from the S accumulators and writes P straight into A operands, so a key
// tile costs no shared memory round trip of S, P or O and no subgroup
// barrier: shared memory holds only the Q, K and V tiles.
//
// The layout (NVIDIA's mma.sync m16n8k16, for the fp32 accumulator and the
// fp16 A operand alike): element e of lane L of a 16x16 fragment is
//   row L / 4 + 8 * ((e / 2) % 2),  column 2 * (L % 4) + e % 2 + 8 * (e / 4).
// A lane holds 4 columns of two rows, so a row's maximum and sum are over
// the 4 lanes of a quad (two shuffles).
//
// Per key tile and subgroup (RB blocks of 16 query rows; RB 2 uses each K
// and V fragment it loads for two products):
//   1. S (16 x BC) = Q K' in BC / 16 accumulators;
//   2. mask, row maxima, and the running maximum: O and the row sums are
//      rescaled in registers when it moves;
//   3. per 16 keys, P = exp(S - m) as an fp16 A operand, O += P V
//      (in base 2: Q is scaled by log2(e) as it is stored).
//
// Compiled per row of flash_attention_cm_tiles.def (EP, WARPS, BC, RB) and
// with or without VKSERVE_F16 by shaders/CMakeLists.txt.
//
// EMULATE: the same algorithm with fragments as arrays in that layout and the
// products in scalar code (a "subgroup" is 32 invocations synchronized by
// workgroup barriers; A operands go through shared memory for the product),
// so lavapipe tests it; only a pinned plan runs it there.
#version 450

#include "flash_attention_cm_io.glsl"

#ifndef RB
#define RB 1
#endif
#if !defined(EP) || !defined(WARPS) || !defined(BC) || (EP % 16) != 0 || (BC % 16) != 0 || \
    ((BC * EP / 8) % (32 * WARPS)) != 0
#error "flash_attention_cm_regs.glsl needs EP and BC multiples of 16 and whole loads per thread"
#endif

const uint THREADS = 32 * WARPS;
const uint BR = 16 * RB * WARPS;  // a subgroup owns RB blocks of 16 query rows
layout(local_size_x = THREADS) in;

// fp16 rows padded by one 16-byte unit, so that a fragment's 8 row starts
// fall in distinct bank groups.
const uint LD = EP + 8;
shared uvec4 q_sh[BR * LD / 8];  // the query tile, scaled
shared uvec4 k_sh[BC * LD / 8];
shared uvec4 v_sh[BC * LD / 8];
const uint KV_UNITS = BC * EP / 8 / THREADS;  // 8-half units per thread per tile
const uint Q_UNITS = BR * EP / 8 / THREADS;

uint frag_row(uint lane, uint e) { return (lane >> 2) + 8u * ((e >> 1) & 1u); }
uint frag_col(uint lane, uint e) { return 2u * (lane & 3u) + (e & 1u) + 8u * (e >> 2); }

// ---- Matrix operations (tensor cores, or their scalar emulation) ----
// A operands (Q, P) are 16x16 fp16 fragments in registers; B operands (K',
// V) are read from k_sh or v_sh at a half offset, K' column-major.
#if EMULATE
struct FragA { float v[8]; };
struct FragB { uint arr, off; bool col; };
struct Acc { float v[8]; };
// Each subgroup's A operand, staged for the product.
shared float a_sh[WARPS * 256];

float half_at(uint arr, uint h) {
  const uvec4 u = arr == 0u ? q_sh[h >> 3] : arr == 1u ? k_sh[h >> 3] : v_sh[h >> 3];
  return unpackHalf2x16(u[(h >> 1) & 3u])[h & 1u];
}
FragA load_a(uint off) {
  const uint lane = gl_LocalInvocationID.x % 32u;
  FragA a;
  [[unroll]] for (uint e = 0; e < 8u; ++e) a.v[e] = half_at(0u, off + frag_row(lane, e) * LD + frag_col(lane, e));
  return a;
}
FragA frag_a_zero() {
  FragA a;
  [[unroll]] for (uint e = 0; e < 8u; ++e) a.v[e] = 0.0;
  return a;
}
float round_f16(float x) { return unpackHalf2x16(packHalf2x16(vec2(x, 0.0))).x; }
// Element e of a fragment (the layout above), and the A operand's element type.
#define EL(frag, e) (frag).v[e]
#define A_T float
FragB load_kt(uint off) { return FragB(1u, off, true); }
FragB load_v(uint off) { return FragB(2u, off, false); }
Acc acc_zero() {
  Acc c;
  [[unroll]] for (uint e = 0; e < 8u; ++e) c.v[e] = 0.0;
  return c;
}
Acc mul_add(FragA a, FragB b, Acc c) {
  const uint warp = gl_LocalInvocationID.x / 32u, lane = gl_LocalInvocationID.x % 32u;
  memoryBarrierShared();
  barrier();  // the previous product has read the staged operand
  [[unroll]] for (uint e = 0; e < 8u; ++e) a_sh[warp * 256u + frag_row(lane, e) * 16u + frag_col(lane, e)] = a.v[e];
  memoryBarrierShared();
  barrier();
  [[dont_unroll]] for (uint e = 0; e < 8u; ++e) {
    const uint r = frag_row(lane, e), col = frag_col(lane, e);
    // Unrolled: llvmpipe cuts a loop short after 65535 iterations in one
    // invocation (gemm_coopmat.glsl).
    [[unroll]] for (uint kk = 0; kk < 16u; ++kk) {
      c.v[e] += a_sh[warp * 256u + r * 16u + kk] *
                half_at(b.arr, b.off + (b.col ? col * LD + kk : kk * LD + col));
    }
  }
  return c;
}
uint pack2(vec2 v) { return packHalf2x16(v); }
#else
#define FragA fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define FragB fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define Acc fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
FragA load_a(uint off) {
  FragA a;
  coopMatLoadNV(a, q_sh, off / 8u, LD / 8u, false);
  return a;
}
FragA frag_a_zero() { return FragA(0.0); }
float round_f16(float x) { return float(float16_t(x)); }
#define EL(frag, e) (frag)[e]
#define A_T float16_t
FragB load_kt(uint off) {
  FragB b;
  coopMatLoadNV(b, k_sh, off / 8u, LD / 8u, true);
  return b;
}
FragB load_v(uint off) {
  FragB b;
  coopMatLoadNV(b, v_sh, off / 8u, LD / 8u, false);
  return b;
}
Acc acc_zero() { return Acc(0.0); }
Acc mul_add(FragA a, FragB b, Acc c) { return coopMatMulAddNV(a, b, c); }
uint pack2(vec2 v) { return packFloat2x16(f16vec2(v)); }
#endif

#include "flash_attention_cm_loads.glsl"

// The maximum (or sum) of a row over the 4 lanes of its quad.
float quad_max(float x) {
  x = max(x, subgroupShuffleXor(x, 1u));
  return max(x, subgroupShuffleXor(x, 2u));
}
float quad_sum(float x) {
  x += subgroupShuffleXor(x, 1u);
  return x + subgroupShuffleXor(x, 2u);
}

void main() {
  const uint warp = gl_LocalInvocationID.x / 32u, lane = gl_LocalInvocationID.x % 32u;
  const uint i0 = gl_WorkGroupID.x * BR;
  const uint h = gl_WorkGroupID.y, b = gl_WorkGroupID.z;
  const uint kvh = h / (p.hq / p.hkv);
  const uint k_at = p.k_off + b * p.k_sb + kvh * p.k_sh, v_at = p.v_off + b * p.v_sb + kvh * p.v_sh;
  // This lane's first query row in block r is row0 + 16 r; element e of a
  // fragment is in that row + 8 ((e / 2) % 2).
  const uint row0 = i0 + warp * 16u * RB + (lane >> 2);

  // Scores in base 2: Q carries log2(e), so p = exp2(s - m).
  const float kLog2e = 1.4426950408889634;
  store_q_tile(p.q_off + b * p.q_sb + h * p.q_sh, i0, p.scale * kLog2e);

  Acc o[RB][EP / 16u];  // this subgroup's RB blocks of 16 x EP of O
  // Per row: the running maximum m (p = exp2(s - m)) and this lane's part of
  // the row sum of p, counted as rounded to fp16 (as P V sees it).
  float m[RB][2], l[RB][2];
  [[unroll]] for (uint r = 0; r < RB; ++r) {
    [[unroll]] for (uint f = 0; f < EP / 16u; ++f) o[r][f] = acc_zero();
    m[r][0] = m[r][1] = kNegInf;
    l[r][0] = l[r][1] = 0.0;
  }
  // Uniform over the workgroup: under the causal mask, keys past the tile's
  // last row + past are never loaded.
  uint t_end = p.t;
  if (CAUSAL) t_end = min(p.t, min(p.s, i0 + BR) + p.past);
  fetch_kv(k_at, v_at, 0u);
  FragA fq[RB][EP / 16u];  // this subgroup's rows of Q, loaded once
  for (uint j0 = 0; j0 < t_end; j0 += BC) {
    barrier();  // the previous tile's K and V are consumed (and Q is stored)
    store_kv();
    barrier();
    if (j0 == 0u) {
      [[unroll]] for (uint r = 0; r < RB; ++r) {
        [[unroll]] for (uint kk = 0; kk < EP / 16u; ++kk) {
          fq[r][kk] = load_a((warp * RB + r) * 16u * LD + kk * 16u);
        }
      }
    }
    if (j0 + BC < t_end) fetch_kv(k_at, v_at, j0 + BC);  // in flight during this tile

    // 1. S = Q K', 16 keys per accumulator.
    Acc s[RB][BC / 16u];
    [[unroll]] for (uint n = 0; n < BC / 16u; ++n) {
      [[unroll]] for (uint r = 0; r < RB; ++r) s[r][n] = acc_zero();
      [[unroll]] for (uint kk = 0; kk < EP / 16u; ++kk) {
        const FragB kt = load_kt(n * 16u * LD + kk * 16u);
        [[unroll]] for (uint r = 0; r < RB; ++r) s[r][n] = mul_add(fq[r][kk], kt, s[r][n]);
      }
    }

    // 2. Masked scores (kept in sc), row maxima, the new running maximum;
    // O and the sums rescaled where it moved. A mask that broadcasts over
    // rows (key padding) is read once per column of this lane, not once per
    // row: col_bias[n][c] is column frag_col(lane, (c % 2) + 4 (c / 2)).
    const bool rows_share_mask = MASK != 0u && p.m_ss == 0u;
    float col_bias[BC / 16u][4];
    [[unroll]] for (uint n = 0; n < BC / 16u; ++n) {
      [[unroll]] for (uint c = 0; c < 4u; ++c) {
        const uint j = j0 + n * 16u + frag_col(lane, (c & 1u) + 4u * (c >> 1));
        col_bias[n][c] = rows_share_mask && j < p.t ? mask_bias(b, h, row0, j) : 0.0;
      }
    }
    float sc[RB][BC / 16u][8];
    [[unroll]] for (uint r = 0; r < RB; ++r) {
      float mx[2] = {kNegInf, kNegInf};
      [[unroll]] for (uint n = 0; n < BC / 16u; ++n) {
        [[unroll]] for (uint e = 0; e < 8u; ++e) {
          const uint i = row0 + 16u * r + 8u * ((e >> 1) & 1u), j = j0 + n * 16u + frag_col(lane, e);
          const bool seen = i < p.s && j < p.t && !(CAUSAL && j > i + p.past);
          float bias = 0.0;
          if (seen) bias = rows_share_mask ? col_bias[n][(e & 1u) + 2u * (e >> 2)] : mask_bias(b, h, i, j);
          sc[r][n][e] = seen ? EL(s[r][n], e) + kLog2e * bias : kNegInf;
          mx[(e >> 1) & 1u] = max(mx[(e >> 1) & 1u], sc[r][n][e]);
        }
      }
      float correction[2];
      [[unroll]] for (uint x = 0; x < 2u; ++x) {
        const float m_new = max(m[r][x], quad_max(mx[x]));
        // exp2(-inf - finite) is 0, and O and l are still 0 then; a row that
        // has seen nothing keeps m = -inf and p = 0.
        correction[x] = m_new == kNegInf ? 1.0 : exp2(m[r][x] - m_new);
        m[r][x] = m_new;
        l[r][x] *= correction[x];
      }
      [[unroll]] for (uint f = 0; f < EP / 16u; ++f) {
        [[unroll]] for (uint e = 0; e < 8u; ++e) EL(o[r][f], e) *= correction[(e >> 1) & 1u];
      }
    }

    // 3. O += P V, 16 keys at a time.
    [[unroll]] for (uint kk = 0; kk < BC / 16u; ++kk) {
      FragA fp[RB];
      [[unroll]] for (uint r = 0; r < RB; ++r) {
        fp[r] = frag_a_zero();
        [[unroll]] for (uint e = 0; e < 8u; ++e) {
          const uint x = (e >> 1) & 1u;
          const float pe = round_f16(m[r][x] == kNegInf ? 0.0 : exp2(sc[r][kk][e] - m[r][x]));
          l[r][x] += pe;
          EL(fp[r], e) = A_T(pe);
        }
      }
      [[unroll]] for (uint f = 0; f < EP / 16u; ++f) {
        const FragB vf = load_v(kk * 16u * LD + f * 16u);
        [[unroll]] for (uint r = 0; r < RB; ++r) o[r][f] = mul_add(fp[r], vf, o[r][f]);
      }
    }
  }

  // Y = O / l, l summed over the row's quad.
  [[unroll]] for (uint r = 0; r < RB; ++r) {
    float inv[2];
    [[unroll]] for (uint x = 0; x < 2u; ++x) {
      const float total = quad_sum(l[r][x]);
      inv[x] = EMPTY_ZERO && total == 0.0 ? 0.0 : 1.0 / total;
    }
    [[unroll]] for (uint f = 0; f < EP / 16u; ++f) {
      [[unroll]] for (uint e = 0; e < 8u; ++e) {
        const uint i = row0 + 16u * r + 8u * ((e >> 1) & 1u), col = f * 16u + frag_col(lane, e);
        if (i < p.s && col < HEAD) y[b * p.y_sb + h * p.y_sh + i * p.y_ss + col] = IO_T(EL(o[r][f], e) * inv[(e >> 1) & 1u]);
      }
    }
  }
}
