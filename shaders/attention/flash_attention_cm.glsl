// SPDX-License-Identifier: Apache-2.0
// Fused attention on tensor cores (VK_NV_cooperative_matrix): the FP16 form of
// shaders/attention/flash_attention.comp (same bindings, push constants and
// masks; runtime/kernels/attention/flash_attention_cm.h plans it). Q, K and V are read as
// fp32 tensors, rounded to fp16 in shared memory, or with VKSERVE_F16 as fp16
// tensors (then an additive mask and Y are fp16 too); S = Q K' and
// O += P V are 16x16x16 fp16 products accumulated in fp32; the online
// softmax, its statistics and O stay fp32.
//
// Compiled per row of flash_attention_cm_tiles.def whose RB is 1 (EP, WARPS,
// BC) and with or without VKSERVE_F16 by shaders/CMakeLists.txt: EP is the
// head size padded to a multiple of 16 (columns past HEAD are zeros), WARPS 32-wide
// subgroups each own 16 query rows of the workgroup's BR = 16 * WARPS, and
// keys stream through shared memory BC at a time. Per key tile and subgroup:
//   1. S (16 x BC) = Q K' on tensor cores, stored fp32 in the subgroup's region
//   2. lanes 2r and 2r+1 own row r, alternate 16 columns each: mask, row max
//      (one shuffle), p = exp(s - m) rounded to fp16 into the region
//   3. O (16 x EP, fp32 accumulators) += P V on tensor cores
// The row's reference maximum m moves only when a score passes it by more
// than e^8, so O is rescaled (through shared memory) on few tiles. The next
// tile's K and V are loaded into registers during steps 1-3.
//
// EMULATE: the same data movement with the matrix operations in scalar code
// (a "subgroup" is 32 invocations, synchronized by workgroup barriers), so
// lavapipe tests the layouts, masks and softmax; only a pinned plan runs it.
#version 450

#include "flash_attention_cm_io.glsl"

#if !defined(EP) || !defined(WARPS) || !defined(BC) || (EP % 16) != 0 || (BC % 32) != 0 || \
    ((BC * EP / 8) % (32 * WARPS)) != 0
#error "flash_attention_cm.glsl needs EP and BC multiples of 16 and whole loads per thread"
#endif

const uint THREADS = 32 * WARPS;
const uint BR = 16 * WARPS;
layout(local_size_x = THREADS) in;

// Shared memory, in 16-byte units. Tiles of fp16 rows, padded by one unit
// so that a fragment's 8 row starts fall in distinct bank groups.
const uint LD = EP + 8;         // halves per row of q_sh, k_sh, v_sh
const uint SLD = BC + 4;        // floats per row of the scores
const uint PLD = BC + 8;        // halves per row of P
const uint OLD = 16 + 4;        // floats per row of a staged O block
const uint S_UNITS = 16 * SLD / 4;
const uint P_UNITS = 16 * PLD / 8;
const uint O_UNITS = 16 * OLD / 4;
const uint W_UNITS = S_UNITS > P_UNITS + O_UNITS ? S_UNITS : P_UNITS + O_UNITS;
shared uvec4 q_sh[BR * LD / 8];   // the query tile, scaled
shared uvec4 k_sh[BC * LD / 8];
shared uvec4 v_sh[BC * LD / 8];
// Per subgroup: the scores, later P (first P_UNITS) and a staged O block.
shared uvec4 w_sh[WARPS * W_UNITS];

// A lane's score columns: blocks of 16, the lane of column half h owning
// blocks 2g + h. A row is 1 unit past a multiple of 8 units (128 bytes), so
// the 16-byte reads of a quarter subgroup (rows r..r+3, both halves, which
// stand 4 units apart) fall in distinct banks.
const uint BLOCKS = BC / 32;
const uint KV_UNITS = BC * EP / 8 / THREADS;  // 8-half units per thread per tile
const uint Q_UNITS = BR * EP / 8 / THREADS;

// ---- Matrix operations (tensor cores, or their scalar emulation) ----
// Operands live in the shared arrays: 0 q_sh, 1 k_sh, 2 v_sh, 3 w_sh; an
// offset and a row stride in halves; B fragments column-major (K') or
// row-major (V).
#if EMULATE
struct Frag { uint arr, off, ld; bool col; };
struct Acc { float v[8]; };  // lane + 32 t is element (row, col) = divmod 16

float half_at(uint arr, uint h) {
  const uvec4 u = arr == 0u ? q_sh[h >> 3] : arr == 1u ? k_sh[h >> 3] : arr == 2u ? v_sh[h >> 3] : w_sh[h >> 3];
  return unpackHalf2x16(u[(h >> 1) & 3u])[h & 1u];
}
float frag_at(Frag f, uint r, uint c) { return half_at(f.arr, f.off + (f.col ? c * f.ld + r : r * f.ld + c)); }
Frag load_frag(uint arr, uint off, uint ld, bool col) { return Frag(arr, off, ld, col); }
Acc acc_zero() {
  Acc r;
  [[unroll]] for (uint t = 0; t < 8u; ++t) r.v[t] = 0.0;
  return r;
}
// The outer loop kept rolled: lavapipe compiles this in seconds.
Acc mul_add(Frag a, Frag b, Acc c) {
  const uint lane = gl_LocalInvocationID.x % 32u;
  [[dont_unroll]] for (uint t = 0; t < 8u; ++t) {
    const uint r = (lane + 32u * t) / 16u, col = (lane + 32u * t) % 16u;
    // Unrolled: llvmpipe cuts a loop short after 65535 iterations in one
    // invocation (counted over all its runs), which a rolled one here could
    // reach on sequences of a thousand keys and more (gemm_coopmat.glsl).
    [[unroll]] for (uint kk = 0; kk < 16u; ++kk) c.v[t] += frag_at(a, r, kk) * frag_at(b, kk, col);
  }
  return c;
}
// Stores `c` as fp32 rows of `ld` floats from float `off` of w_sh, and
// loads it back.
void store_acc(Acc c, uint off, uint ld) {
  const uint lane = gl_LocalInvocationID.x % 32u;
  [[unroll]] for (uint t = 0; t < 8u; ++t) {
    const uint e = lane + 32u * t, at = off + (e / 16u) * ld + e % 16u;
    w_sh[at >> 2][at & 3u] = floatBitsToUint(c.v[t]);
  }
}
Acc load_acc(uint off, uint ld) {
  const uint lane = gl_LocalInvocationID.x % 32u;
  Acc c;
  [[unroll]] for (uint t = 0; t < 8u; ++t) {
    const uint e = lane + 32u * t, at = off + (e / 16u) * ld + e % 16u;
    c.v[t] = uintBitsToFloat(w_sh[at >> 2][at & 3u]);
  }
  return c;
}
void warp_sync() {
  memoryBarrierShared();
  barrier();
}
uint pack2(vec2 v) { return packHalf2x16(v); }
#else
#define Frag fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define Acc fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
Frag load_frag(uint arr, uint off, uint ld, bool col) {
  Frag f;
  if (arr == 0u) {
    coopMatLoadNV(f, q_sh, off / 8u, ld / 8u, false);
  } else if (arr == 1u) {
    coopMatLoadNV(f, k_sh, off / 8u, ld / 8u, true);
  } else if (arr == 2u) {
    coopMatLoadNV(f, v_sh, off / 8u, ld / 8u, false);
  } else {
    coopMatLoadNV(f, w_sh, off / 8u, ld / 8u, false);
  }
  return f;
}
Acc acc_zero() { return Acc(0.0); }
Acc mul_add(Frag a, Frag b, Acc c) { return coopMatMulAddNV(a, b, c); }
void store_acc(Acc c, uint off, uint ld) { coopMatStoreNV(c, w_sh, off / 4u, ld / 4u, false); }
Acc load_acc(uint off, uint ld) {
  Acc c;
  coopMatLoadNV(c, w_sh, off / 4u, ld / 4u, false);
  return c;
}
void warp_sync() {
  subgroupMemoryBarrierShared();
  subgroupBarrier();
}
uint pack2(vec2 v) { return packFloat2x16(f16vec2(v)); }
#endif

float w_float(uint at) { return uintBitsToFloat(w_sh[at >> 2][at & 3u]); }

#include "flash_attention_cm_loads.glsl"

void main() {
  const uint warp = gl_LocalInvocationID.x / 32u, lane = gl_LocalInvocationID.x % 32u;
  const uint r = lane >> 1, half_ = lane & 1u;  // this lane's row and column half
  const uint i0 = gl_WorkGroupID.x * BR;
  const uint h = gl_WorkGroupID.y, b = gl_WorkGroupID.z;
  const uint kvh = h / (p.hq / p.hkv);
  const uint k_at = p.k_off + b * p.k_sb + kvh * p.k_sh, v_at = p.v_off + b * p.v_sb + kvh * p.v_sh;
  const uint row = i0 + warp * 16u + r;  // this lane's query row
  const uint w0 = warp * W_UNITS * 4u;   // this subgroup's region, in floats

  // The query tile, scaled and rounded to fp16 (zeros past S).
  const uint q_at = p.q_off + b * p.q_sb + h * p.q_sh;
  store_q_tile(q_at, i0, p.scale);

  Acc o[EP / 16u];  // this subgroup's 16 x EP block of O, 16 columns each
  [[unroll]] for (uint f = 0; f < EP / 16u; ++f) o[f] = acc_zero();
  // The row's reference maximum: p = exp(s - m). It moves only when a score
  // passes it by more than kGrowth (or the row saw nothing yet), so most
  // tiles add P V straight into O; the rest rescale O through shared memory.
  // p then stays below e^kGrowth, well inside fp16.
  const float kGrowth = 8.0;
  float m = kNegInf, l = 0.0;
  const uint o_at = w0 + P_UNITS * 4u;  // the staging block
  // Uniform over the workgroup: under the causal mask, keys past the tile's
  // last row + past are never loaded.
  uint t_end = p.t;
  if (CAUSAL) t_end = min(p.t, min(p.s, i0 + BR) + p.past);
  fetch_kv(k_at, v_at, 0u);
  Frag fq[EP / 16u];  // this subgroup's rows of Q, loaded once
  for (uint j0 = 0; j0 < t_end; j0 += BC) {
    barrier();  // the previous tile's K and V are consumed (and Q is stored)
    store_kv();
    barrier();
    if (j0 == 0u) {
      [[unroll]] for (uint kk = 0; kk < EP / 16u; ++kk) fq[kk] = load_frag(0u, warp * 16u * LD + kk * 16u, LD, false);
    }
    if (j0 + BC < t_end) fetch_kv(k_at, v_at, j0 + BC);  // in flight during this tile

    // 1. S = Q K' into the region, 16 keys at a time.
    [[unroll]] for (uint n = 0; n < BC / 16u; ++n) {
      Acc acc = acc_zero();
      [[unroll]] for (uint kk = 0; kk < EP / 16u; ++kk) {
        const Frag fk = load_frag(1u, n * 16u * LD + kk * 16u, LD, true);
        acc = mul_add(fq[kk], fk, acc);
      }
      store_acc(acc, w0 + n * 16u, SLD);
    }
    warp_sync();

    // 2. The online softmax over this lane's half of row r.
    vec4 sc[BLOCKS * 4u];  // sc[4 g + u]: columns (2 g + half_) * 16 + 4 u + e
    float mx = kNegInf;
    [[unroll]] for (uint g = 0; g < BLOCKS; ++g) {
      [[unroll]] for (uint u = 0; u < 4u; ++u) {
        const uint col = (2u * g + half_) * 16u + 4u * u;
        const vec4 s4 = uintBitsToFloat(w_sh[(w0 + r * SLD + col) / 4u]);
        [[unroll]] for (uint e = 0; e < 4u; ++e) {
          const uint j = j0 + col + e;
          const bool seen = row < p.s && j < p.t && !(CAUSAL && j > row + p.past);
          sc[4u * g + u][e] = seen ? s4[e] + mask_bias(b, h, row, j) : kNegInf;
          mx = max(mx, sc[4u * g + u][e]);
        }
      }
    }
    mx = max(mx, subgroupShuffleXor(mx, 1u));
    // A row that saw nothing has O = 0 and l = 0: it takes the tile's
    // maximum as it is (exp(-inf - -inf) would be NaN).
    float correction = 1.0;
    if (m == kNegInf) {
      m = mx;
    } else if (mx > m + kGrowth) {
      correction = exp(m - mx);
      m = mx;
    }
    l *= correction;
#if EMULATE
    const bool rescale = true;  // the emulated subgroup spans several real ones
#else
    const bool rescale = subgroupAny(correction != 1.0);
#endif
    warp_sync();  // every lane has read its scores: P may overwrite them
    if (rescale) {
      [[unroll]] for (uint f = 0; f < EP / 16u; ++f) {
        store_acc(o[f], o_at, OLD);
        warp_sync();
        [[unroll]] for (uint c = 0; c < 8u; ++c) {
          const uint at = o_at + r * OLD + half_ * 8u + c;
          w_sh[at >> 2][at & 3u] = floatBitsToUint(w_float(at) * correction);
        }
        warp_sync();
        o[f] = load_acc(o_at, OLD);
        warp_sync();
      }
    }
    float sum = 0.0;
    [[unroll]] for (uint g = 0; g < BLOCKS; ++g) {
      [[unroll]] for (uint u = 0; u < 4u; u += 2u) {
        const vec4 lo = m == kNegInf ? vec4(0.0) : exp(sc[4u * g + u] - m);
        const vec4 hi = m == kNegInf ? vec4(0.0) : exp(sc[4u * g + u + 1u] - m);
        const uvec4 packed = uvec4(pack2(lo.xy), pack2(lo.zw), pack2(hi.xy), pack2(hi.zw));
        // The row sum counts p as P V sees it: rounded to fp16.
        [[unroll]] for (uint e = 0; e < 4u; ++e) {
          const vec2 pair = unpackHalf2x16(packed[e]);
          sum += pair.x + pair.y;
        }
        const uint col = (2u * g + half_) * 16u + 4u * u;
        w_sh[(w0 / 4u) + (r * PLD + col) / 8u] = packed;
      }
    }
    l += sum;
    warp_sync();

    // 3. O += P V.
    [[unroll]] for (uint kk = 0; kk < BC / 16u; ++kk) {
      const Frag fp = load_frag(3u, w0 * 2u + kk * 16u, PLD, false);
      [[unroll]] for (uint f = 0; f < EP / 16u; ++f) {
        o[f] = mul_add(fp, load_frag(2u, kk * 16u * LD + f * 16u, LD, false), o[f]);
      }
    }
    warp_sync();  // P is consumed before the next tile's scores overwrite it
  }

  // Y = O / l, l summed over both halves of the row, each block of O
  // through the staging block.
  const float total = l + subgroupShuffleXor(l, 1u);
  const float inv = EMPTY_ZERO && total == 0.0 ? 0.0 : 1.0 / total;
  const uint y_at = b * p.y_sb + h * p.y_sh + row * p.y_ss;
  [[unroll]] for (uint f = 0; f < EP / 16u; ++f) {
    store_acc(o[f], o_at, OLD);
    warp_sync();
    [[unroll]] for (uint c = 0; c < 8u; ++c) {
      const uint col = f * 16u + half_ * 8u + c;
      if (row < p.s && col < HEAD) y[y_at + col] = IO_T(w_float(o_at + r * OLD + half_ * 8u + c) * inv);
    }
    warp_sync();
  }
}
