// SPDX-License-Identifier: Apache-2.0
// The GEMM engine's tensor-core compute core (VK_NV_cooperative_matrix):
// fp16 x fp16 products accumulated in fp32 (or in fp16: ACC_F16). Compiled
// by shaders/CMakeLists.txt per tile with the tile and the matrix shape as
// defines; the engine uses a variant only on a device whose subgroup is 32
// wide and which reports that matrix shape with that accumulator type
// (runtime/kernels/gemm/gemm_plan.h).
//
// A workgroup of WARPS_M x WARPS_N 32-wide subgroups computes a BM x BN block;
// each subgroup owns a (BM / WARPS_M) x (BN / WARPS_N) block as FRAGS_M x
// FRAGS_N accumulators of CM_M x CM_N. K streams in steps of BK through
// STAGES shared-memory stages (2: double-buffered, one barrier per step; 1:
// half the shared memory, two barriers per step); the global loads of the
// next step (PREFETCH 1) or of the one after it (PREFETCH 2, with one
// stage: a second register set, so loads have two steps of matrix work to
// land in) are issued before the current step's matrix work.
//
// Shared memory holds fp16 in 16-byte units (uvec4 of 8 halves). Each operand
// keeps the orientation of its contiguous dimension in memory, so a thread
// moves 8 consecutive elements with wide global loads, converts them once
// (an fp16 operand not at all: its raw bytes) and stores them with one
// 128-bit shared store: A as [m][k] rows (or [k][m]
// when A_TRANS), B as [k][n] (or [n][k] when B_TRANS or read through the
// im2col view); the matrix loads take the matching row / column-major
// layout. Rows are padded by one unit, which also keeps the 8 row starts of a
// fragment load in distinct bank groups.
//
// The epilogue (gemm_epilogue.glsl's store_cols4, 4 consecutive columns per
// lane) runs after the accumulators pass, a row of fragments at a time,
// through fp32 staging rows in the shared memory the K loop is done with.
//
// ACC_F16 (the "_acc16" variants): the accumulators are fp16 matrices
// (fp16 x fp16 -> fp16, about twice the fp32-accumulate rate on NVIDIA
// tensor cores), converted to fp32 once, for the staging block and the
// epilogue. The engine uses one only where the device reports the fp16
// result type for the tile's shape and the model asked for fp16
// accumulation (runtime/kernels/gemm/gemm_plan.h).
//
// B_NHWC (the "_nhwc" variants, fp16 tensors only; with B_IM2COL): B is
// the im2col view of a channels-last image batch, K ordered (ky, kx,
// channel), 8 channels per 16-byte load (gemm_load_im2col_nhwc.glsl); the
// engine's output view then writes Y channels-last, 4 channels per store.
//
// EMULATE (the "_emu" variants): the same data movement with the matrix
// operations done in scalar code by 32 invocations at a time and workgroup
// barriers in place of subgroup ones, so devices without cooperative
// matrices (lavapipe in CI) test the loaders, layouts and epilogue of these
// kernels. Never chosen by the cost model; only a pinned plan runs it. With
// ACC_F16 each lane's accumulator is a float16_t: every product (exact in
// fp32) is added and the sum rounded to fp16, at least as many roundings as
// the tensor cores make, so the emulation bounds their error from above.
// That needs shaderFloat16, which the plan checks.
#version 450

#ifndef ACC_F16
#define ACC_F16 0
#endif
#ifndef B_NHWC
#define B_NHWC 0
#endif
#ifndef PREFETCH
#define PREFETCH 1
#endif
#if B_NHWC && (!B_IM2COL || !VKSERVE_F16 || (CM_M % 4) != 0)
#error "B_NHWC is an im2col loader for fp16 tensors (and CM_M a multiple of 4)"
#endif

#extension GL_KHR_shader_subgroup_basic : require
#if !EMULATE
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#endif
#if !EMULATE || ACC_F16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(WARPS_M) || !defined(WARPS_N) || \
    !defined(CM_M) || !defined(CM_N) || !defined(CM_K) || !defined(THREADS) || !defined(STAGES)
#error "gemm_coopmat.glsl needs BM, BN, BK, WARPS_M, WARPS_N, CM_M, CM_N, CM_K, THREADS, STAGES"
#endif
#if THREADS != WARPS_M * WARPS_N * 32 || (BM % (WARPS_M * CM_M)) != 0 || \
    (BN % (WARPS_N * CM_N)) != 0 || (CM_N % 4) != 0 || (BK % CM_K) != 0 || (BK % 8) != 0 || \
    ((BM * BK / 8) % THREADS) != 0 || ((BN * BK / 8) % THREADS) != 0 || \
    (STAGES != 1 && STAGES != 2) || (PREFETCH != 1 && PREFETCH != 2) || \
    (PREFETCH == 2 && STAGES != 1)
#error "inconsistent coopmat tile defines"
#endif

layout(local_size_x = THREADS) in;

#include "gemm_interface.glsl"
#include "gemm_epilogue.glsl"

const uint WM = BM / WARPS_M;  // rows and columns of one subgroup's block
const uint WN = BN / WARPS_N;
const uint FRAGS_M = WM / CM_M;
const uint FRAGS_N = WN / CM_N;
const uint PAD = 8;  // halves: one 16-byte unit per shared row
// Halves per stage: the larger of the two orientations.
const uint A_STAGE = BM * (BK + PAD) > BK * (BM + PAD) ? BM * (BK + PAD) : BK * (BM + PAD);
const uint B_STAGE = BN * (BK + PAD) > BK * (BN + PAD) ? BN * (BK + PAD) : BK * (BN + PAD);
const uint A_UNITS = BM * BK / 8 / THREADS;  // 8-element units per thread per step
const uint B_UNITS = BN * BK / 8 / THREADS;

// Shared orientation: A_KM stores A as [k][m] (column-major fragments), B_KN
// stores B as [k][n] (row-major fragments).
const bool A_KM = A_TRANS;
#if B_NHWC
const bool B_KN = false;
#elif B_IM2COL
const bool B_KN = POINTWISE && VEC_B;
#else
const bool B_KN = !B_TRANS;
#endif
const uint A_LD = A_KM ? BM + PAD : BK + PAD;  // halves per shared row
const uint B_LD = B_KN ? BN + PAD : BK + PAD;

// A's stages, then B's, in one array: once the K loop is done, the epilogue
// stages the sums in the same memory.
const uint B_SH0 = STAGES * A_STAGE / 8;  // B's first unit
shared uvec4 ab_sh[B_SH0 + STAGES * B_STAGE / 8];
#define a_sh(i) ab_sh[i]
#define b_sh(i) ab_sh[B_SH0 + (i)]

// One step's global loads, 8 elements per unit, held in registers across
// the current step's matrix work: an operand stored in fp16 (RAW) keeps its
// 16 bytes as they are (no conversion, half the registers); an fp32 one
// keeps two vec4 and is packed to fp16 at the shared store.
#define A_RAW VKSERVE_F16
#define B_RAW ((VKSERVE_F16 || VKSERVE_B16) && !B_IM2COL)
struct F8 {
  vec4 lo;
  vec4 hi;
};
#if A_RAW
uvec4 a_st[PREFETCH][A_UNITS];
#else
F8 a_st[PREFETCH][A_UNITS];
#endif
// fp16 im2col units are packed as they are loaded (the pointwise rows are
// raw bytes already).
#define B_PACKED (B_RAW || (VKSERVE_F16 && B_IM2COL))
#if B_PACKED
uvec4 b_st[PREFETCH][B_UNITS];
#else
F8 b_st[PREFETCH][B_UNITS];
#endif
// 8- and 4-half views of the fp16 operands (RAW loads).
layout(binding = 0) readonly buffer ABuf8 { uvec4 a8[]; };
layout(binding = 0) readonly buffer ABuf2 { uvec2 a2[]; };
layout(binding = 1) readonly buffer BBuf8 { uvec4 b8[]; };
layout(binding = 1) readonly buffer BBuf2 { uvec2 b2[]; };

uint a_base;
uint b_base;
uint m0;
uint n0;

#if B_NHWC
#include "gemm_load_im2col_nhwc.glsl"
#elif B_IM2COL
#define GEMM_IM2COL_VIEW_ONLY 1
#include "gemm_load_im2col.glsl"
#endif

// ---- Matrix operations (tensor cores, or their scalar emulation) ----
const uint ACC_PER_LANE = CM_M * CM_N / 32;
#if EMULATE
struct FragA { uint off; };  // halves into a_sh; orientation A_KM, stride A_LD
struct FragB { uint off; };
#if ACC_F16
#define acc_t float16_t
#else
#define acc_t float
#endif
struct Acc { acc_t v[ACC_PER_LANE]; };

uint pack2(vec2 v) { return packHalf2x16(vec2(round_f16(v.x), round_f16(v.y))); }
float a_half(uint h) { return unpackHalf2x16(a_sh(h >> 3)[(h >> 1) & 3u])[h & 1u]; }
float b_half(uint h) { return unpackHalf2x16(b_sh(h >> 3)[(h >> 1) & 3u])[h & 1u]; }
Acc acc_zero() {
  Acc r;
  [[unroll]] for (uint t = 0; t < ACC_PER_LANE; ++t) r.v[t] = acc_t(0.0);
  return r;
}
void load_frag_a(out FragA f, uint off) { f.off = off; }
void load_frag_b(out FragB f, uint off) { f.off = off; }
// The outer loop kept rolled: lavapipe compiles this in seconds instead of
// minutes. The inner one is unrolled: llvmpipe cuts a loop short after 65535
// iterations in one invocation (its guard against endless loops), and rolled,
// this one passed that count at K = 1792 (64x64) or 448 (128x256), leaving
// the sums unfinished and the output silently wrong.
Acc mul_add(FragA fa, FragB fb, Acc c) {
  const uint lane = gl_LocalInvocationID.x % 32;
  [[dont_unroll]] for (uint t = 0; t < ACC_PER_LANE; ++t) {
    const uint r = (lane + 32 * t) / CM_N;
    const uint col = (lane + 32 * t) % CM_N;
    [[unroll]] for (uint kk = 0; kk < CM_K; ++kk) {
      const float x = a_half(fa.off + (A_KM ? kk * A_LD + r : r * A_LD + kk));
      const float y = b_half(fb.off + (B_KN ? kk * B_LD + col : col * B_LD + kk));
      c.v[t] = acc_t(float(c.v[t]) + x * y);
    }
  }
  return c;
}
void store_acc(Acc c, uint base, uint ld) {
  const uint lane = gl_LocalInvocationID.x % 32;
  [[unroll]] for (uint t = 0; t < ACC_PER_LANE; ++t) {
    const uint at = base + ((lane + 32 * t) / CM_N) * ld + (lane + 32 * t) % CM_N;
    ab_sh[at >> 2][at & 3u] = floatBitsToUint(float(c.v[t]));
  }
}
// The emulated subgroup is 32 invocations of the workgroup: every one of
// them runs the epilogue loops the same number of times.
void stage_sync() {
  memoryBarrierShared();
  barrier();
}
#else
#define FragA fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_K>
#define FragB fcoopmatNV<16, gl_ScopeSubgroup, CM_K, CM_N>
#define Acc32 fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>
#if ACC_F16
#define Acc fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_N>
#else
#define Acc Acc32
#endif

uint pack2(vec2 v) { return packFloat2x16(f16vec2(v)); }
#if ACC_F16
Acc acc_zero() { return Acc(float16_t(0.0)); }
#else
Acc acc_zero() { return Acc(0.0); }
#endif
void load_frag_a(out FragA f, uint off) {
  if (A_KM) {
    coopMatLoadNV(f, ab_sh, off / 8, A_LD / 8, true);
  } else {
    coopMatLoadNV(f, ab_sh, off / 8, A_LD / 8, false);
  }
}
void load_frag_b(out FragB f, uint off) {
  if (B_KN) {
    coopMatLoadNV(f, ab_sh, B_SH0 + off / 8, B_LD / 8, false);
  } else {
    coopMatLoadNV(f, ab_sh, B_SH0 + off / 8, B_LD / 8, true);
  }
}
Acc mul_add(FragA fa, FragB fb, Acc c) { return coopMatMulAddNV(fa, fb, c); }
// fp16 accumulators are widened to fp32 for the staging rows; base and ld
// are in floats, multiples of 4 (16-byte units of ab_sh).
void store_acc(Acc c, uint base, uint ld) {
  coopMatStoreNV(Acc32(c), ab_sh, base / 4, ld / 4, false);
}
void stage_sync() {
  subgroupMemoryBarrierShared();
  subgroupBarrier();
}
#endif

Acc acc[FRAGS_M][FRAGS_N];

uvec4 pack8(vec4 lo, vec4 hi) {
  return uvec4(pack2(lo.xy), pack2(lo.zw), pack2(hi.xy), pack2(hi.zw));
}
uvec4 to_shared(uvec4 raw) { return raw; }
uvec4 to_shared(F8 v) { return pack8(v.lo, v.hi); }

// ---- Operand staging ----
// A (op a: rows x = m < p.m from m0, BM per block) and B (op b: columns
// x = n < p.n from n0, BN per block) are staged alike. Unit i of a step is
// 8 consecutive elements of one shared row (op##_unit: its row and first
// element); load_<op>_step loads them into op##_st and store_<op>_step
// stores each with one 128-bit store into stage s.
#define GEMM_CM_STORE_STEP(op, OP)                                              \
  void store_##op##_step(uint s, uint set) {                                    \
    [[unroll]] for (uint u = 0; u < OP##_UNITS; ++u) {                          \
      const uvec2 rc = op##_unit(gl_LocalInvocationID.x + u * THREADS);         \
      op##_sh((s * OP##_STAGE + rc.x * OP##_LD + rc.y) / 8) = to_shared(op##_st[set][u]); \
    }                                                                           \
  }

#define GEMM_CM_STRIDED_LOADER(op, OP, X_END, X0, BX, XK, VEC, LD)              \
  float load_##op##1(uint x, uint k, uint k_end) {                              \
    if (x >= X_END || k >= k_end) return 0.0;                                   \
    return float(op[op##_base + (XK ? k * LD + x : x * LD + k)]);               \
  }                                                                             \
  vec4 load_##op##4(uint x, uint k, uint k_end) {                               \
    if (VEC) {                                                                  \
      if (x >= X_END || k >= k_end) return vec4(0.0);                           \
      return vec4(op##4[(op##_base + (XK ? k * LD + x : x * LD + k)) / 4]);     \
    }                                                                           \
    return XK ? vec4(load_##op##1(x, k, k_end), load_##op##1(x + 1, k, k_end),  \
                     load_##op##1(x + 2, k, k_end), load_##op##1(x + 3, k, k_end)) \
              : vec4(load_##op##1(x, k, k_end), load_##op##1(x, k + 1, k_end),  \
                     load_##op##1(x, k + 2, k_end), load_##op##1(x, k + 3, k_end)); \
  }                                                                             \
  uvec2 op##_unit(uint i) {                                                     \
    return XK ? uvec2(i / (BX / 8), (i % (BX / 8)) * 8)                         \
              : uvec2(i / (BK / 8), (i % (BK / 8)) * 8);                        \
  }                                                                             \
  F8 load_##op##_f8(uint x, uint k, uint k_end) {                               \
    F8 r;                                                                       \
    r.lo = load_##op##4(x, k, k_end);                                           \
    r.hi = XK ? load_##op##4(x + 4, k, k_end) : load_##op##4(x, k + 4, k_end);  \
    return r;                                                                   \
  }

// An fp16 operand's 8 halves from (x, k) as stored. VEC8: the contiguous
// extent, the row stride and every batch offset are multiples of 8, so one
// 16-byte load is all in or all out; VEC: two 8-byte loads, each all in or
// all out; else gathered. Defines load_<op>_raw.
#define GEMM_CM_RAW_LOADER(op, X_END, XK, VEC, VEC8, LD)                         \
  uvec4 load_##op##_raw(uint x, uint k, uint k_end) {                           \
    const uint i = op##_base + (XK ? k * LD + x : x * LD + k);                  \
    if (VEC8) {                                                                 \
      return x < X_END && k < k_end ? op##8[i / 8] : uvec4(0);                  \
    }                                                                           \
    if (VEC) {                                                                  \
      const uint x4 = XK ? x + 4 : x;                                           \
      const uint k4 = XK ? k : k + 4;                                           \
      return uvec4(x < X_END && k < k_end ? op##2[i / 4] : uvec2(0),            \
                   x4 < X_END && k4 < k_end ? op##2[i / 4 + 1] : uvec2(0));     \
    }                                                                           \
    const F8 v = load_##op##_f8(x, k, k_end);                                   \
    return pack8(v.lo, v.hi);                                                   \
  }

// load_<op>_step: the units of one K step through load_<op>_<KIND> (raw or
// f8, by the operand's storage).
#define GEMM_CM_LOAD_STEP(op, OP, X0, XK, KIND)                                 \
  void load_##op##_step(uint k0, uint k_end, uint set) {                        \
    [[unroll]] for (uint u = 0; u < OP##_UNITS; ++u) {                          \
      const uvec2 rc = op##_unit(gl_LocalInvocationID.x + u * THREADS);         \
      op##_st[set][u] = load_##op##_##KIND(X0 + (XK ? rc.y : rc.x), k0 + (XK ? rc.x : rc.y), k_end); \
    }                                                                           \
  }

// Operand A: a strided matrix, [k][m] in memory when A_TRANS (= A_KM).
GEMM_CM_STRIDED_LOADER(a, A, p.m, m0, BM, A_KM, VEC_A, p.lda)
#if A_RAW
GEMM_CM_RAW_LOADER(a, p.m, A_KM, VEC_A, VEC8_A, p.lda)
GEMM_CM_LOAD_STEP(a, A, m0, A_KM, raw)
#else
GEMM_CM_LOAD_STEP(a, A, m0, A_KM, f8)
#endif
GEMM_CM_STORE_STEP(a, A)

// Operand B: a strided matrix, [k][n] in memory unless B_TRANS (= B_KN), or
// the im2col view (NCHW here; NHWC: gemm_load_im2col_nhwc.glsl).
#if B_NHWC
#elif B_IM2COL
// Rows of n (one fixed column per thread, THREADS a multiple of BN) and 8
// consecutive k per unit; or, POINTWISE with VEC_B, rows of k with 8
// consecutive pixels read as vectors straight from X.
uvec2 b_unit(uint i) {
  return B_KN ? uvec2(i / (BN / 8), (i % (BN / 8)) * 8) : uvec2(i % BN, (i / BN) * 8);
}

// The X offsets of the two halves of a unit: 8 consecutive pixels of row k
// from column col (a multiple of 8; VEC_B: n_inner and every offset are
// multiples of 4), ~0u where out of range. (image, pixel) is found once per
// unit (a division by a push constant costs ~20 instructions), again only
// where the second half starts another image.
const uint kNoPixel = ~0u;
uvec2 x8_pixel_offsets(uint k, uint col, uint k_end) {
  uvec2 o = uvec2(kNoPixel);
  if (k >= k_end || col >= p.n) return o;
  uint image = col / p.n_inner;
  uint pix = col - image * p.n_inner;
  o.x = image * p.ldb + b_base + k * p.n_inner + pix;
  if (col + 4 >= p.n) return o;
  pix += 4;
  if (pix >= p.n_inner) {
    pix -= p.n_inner;
    ++image;
  }
  o.y = image * p.ldb + b_base + k * p.n_inner + pix;
  return o;
}

// fp16 X moves as raw 8-byte halves.
#if B_PACKED
uvec4 load_x8_pixels(uint k, uint col, uint k_end) {
  const uvec2 o = x8_pixel_offsets(k, col, k_end);
  return uvec4(o.x != kNoPixel ? b2[o.x / 4] : uvec2(0), o.y != kNoPixel ? b2[o.y / 4] : uvec2(0));
}
#else
F8 load_x8_pixels(uint k, uint col, uint k_end) {
  const uvec2 o = x8_pixel_offsets(k, col, k_end);
  F8 r;
  r.lo = o.x != kNoPixel ? vec4(b4[o.x / 4]) : vec4(0.0);
  r.hi = o.y != kNoPixel ? vec4(b4[o.y / 4]) : vec4(0.0);
  return r;
}
#endif

// Taps k .. k+7 of this thread's column. k is decomposed into (channel, ky,
// kx) once and then stepped in tap order, not divided per tap: this loader,
// not the tensor cores, bounds the convolutions (on the H200 a 3x3 ran 3x
// faster with its loads ablated).
F8 load_x8_taps(uint k, uint k_end) {
  float v[8];
  uint ci = k / KHW;
  const uint rest = k - ci * KHW;
  uint ky = rest / KW;
  uint kx = rest - ky * KW;
  [[unroll]] for (uint j = 0; j < 8; ++j) {
    v[j] = 0.0;
    if (POINTWISE) {
      // (Without VEC_B.) ix0 is the pixel; every tap is channel k + j.
      if (b_col_valid && k + j < k_end) v[j] = float(b[x_base + (k + j) * p.n_inner + uint(ix0)]);
    } else if (b_col_valid && k + j < k_end) {
      const int iy = iy0 + int(ky * DH);
      const int ix = ix0 + int(kx * DW);
      if (uint(iy) < p.in_h && uint(ix) < p.in_w) {
        v[j] = float(b[x_base + (ci * p.in_h + uint(iy)) * p.in_w + uint(ix)]);
      }
    }
    if (++kx == KW) {
      kx = 0;
      if (++ky == KH) {
        ky = 0;
        ++ci;
      }
    }
  }
  F8 r;
  r.lo = vec4(v[0], v[1], v[2], v[3]);
  r.hi = vec4(v[4], v[5], v[6], v[7]);
  return r;
}

void load_b_step(uint k0, uint k_end, uint set) {
  [[unroll]] for (uint u = 0; u < B_UNITS; ++u) {
    const uvec2 rc = b_unit(gl_LocalInvocationID.x + u * THREADS);
    if (B_KN) {
      b_st[set][u] = load_x8_pixels(k0 + rc.x, n0 + rc.y, k_end);
    } else {
#if B_PACKED
      const F8 taps = load_x8_taps(k0 + rc.y, k_end);
      b_st[set][u] = pack8(taps.lo, taps.hi);
#else
      b_st[set][u] = load_x8_taps(k0 + rc.y, k_end);
#endif
    }
  }
}
#else
GEMM_CM_STRIDED_LOADER(b, B, p.n, n0, BN, B_KN, VEC_B, p.ldb)
#if B_RAW
GEMM_CM_RAW_LOADER(b, p.n, B_KN, VEC_B, VEC8_B, p.ldb)
GEMM_CM_LOAD_STEP(b, B, n0, B_KN, raw)
#else
GEMM_CM_LOAD_STEP(b, B, n0, B_KN, f8)
#endif
#endif
GEMM_CM_STORE_STEP(b, B)

// ---- The K loop ----
void multiply_stage(uint s, uint warp_m, uint warp_n) {
  [[unroll]] for (uint kk = 0; kk < BK; kk += CM_K) {
    FragA fa[FRAGS_M];
    [[unroll]] for (uint i = 0; i < FRAGS_M; ++i) {
      const uint m = warp_m * WM + i * CM_M;
      load_frag_a(fa[i], s * A_STAGE + (A_KM ? kk * A_LD + m : m * A_LD + kk));
    }
    FragB fb[FRAGS_N];
    [[unroll]] for (uint j = 0; j < FRAGS_N; ++j) {
      const uint n = warp_n * WN + j * CM_N;
      load_frag_b(fb[j], s * B_STAGE + (B_KN ? kk * B_LD + n : n * B_LD + kk));
    }
    [[unroll]] for (uint i = 0; i < FRAGS_M; ++i) {
      [[unroll]] for (uint j = 0; j < FRAGS_N; ++j) acc[i][j] = mul_add(fa[i], fb[j], acc[i][j]);
    }
  }
}

#if PREFETCH == 1
void k_loop(uint k_begin, uint k_end, uint warp_m, uint warp_n) {
  if (k_begin < k_end) {
    load_a_step(k_begin, k_end, 0);
    load_b_step(k_begin, k_end, 0);
  }
#if STAGES == 2
  if (k_begin < k_end) {
    store_a_step(0, 0);
    store_b_step(0, 0);
  }
  barrier();
  uint s = 0;
  for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
    const bool more = k0 + BK < k_end;
    if (more) {
      load_a_step(k0 + BK, k_end, 0);
      load_b_step(k0 + BK, k_end, 0);
    }
    multiply_stage(s, warp_m, warp_n);
    if (more) {
      store_a_step(s ^ 1u, 0);
      store_b_step(s ^ 1u, 0);
    }
    barrier();
    s ^= 1u;
  }
#else
  for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
    store_a_step(0, 0);
    store_b_step(0, 0);
    barrier();
    if (k0 + BK < k_end) {
      load_a_step(k0 + BK, k_end, 0);
      load_b_step(k0 + BK, k_end, 0);
    }
    multiply_stage(0, warp_m, warp_n);
    barrier();
  }
#endif
}
#else
// Two register sets, one shared stage: the loads of step i + 2 are issued
// while step i is multiplied, so a step's global loads have two steps of
// matrix work to land in instead of one. Step i uses set i % 2; the loop is
// unrolled by two so that every set index is a constant.
void prefetch_step(uint k0, uint k_end, uint set) {
  if (k0 < k_end) {
    load_a_step(k0, k_end, set);
    load_b_step(k0, k_end, set);
  }
}

// Step k0 (parity `set`, a constant after unrolling) of the loop.
void k_step(uint k0, uint k_end, uint set, uint warp_m, uint warp_n) {
  store_a_step(0, set);
  store_b_step(0, set);
  barrier();
  prefetch_step(k0 + 2 * BK, k_end, set);
  multiply_stage(0, warp_m, warp_n);
  barrier();
}

void k_loop(uint k_begin, uint k_end, uint warp_m, uint warp_n) {
  prefetch_step(k_begin, k_end, 0);
  prefetch_step(k_begin + BK, k_end, 1);
  for (uint k0 = k_begin; k0 < k_end; k0 += 2 * BK) {
    k_step(k0, k_end, 0, warp_m, warp_n);
    if (k0 + BK >= k_end) break;
    k_step(k0 + BK, k_end, 1, warp_m, warp_n);
  }
}
#endif

#if B_NHWC
// Y channels-last: the output view's rows (output channels) are adjacent
// in memory (y_stride_m 1), so each lane finishes 4 rows of one column and,
// with VEC_OUT (C_out % 4 == 0: the 4 are all in or all out), stores them
// with one 8-byte store. Split-K partial sums stay dense [M][N].
void store_rows4(vec4 v, uint z, uint split, uint row, uint col) {
  if (col >= p.n || row >= p.m) return;
  if (PARTIAL) {
    [[unroll]] for (uint i = 0; i < 4; ++i) {
      if (row + i < p.m) part[((split * p.batch + z) * p.m + row + i) * p.n + col] = v[i];
    }
    return;
  }
  const uint idx = output_index(z, row, col);
  if (VEC_OUT) {
    y4[idx / 4u] = IO_T4(finish(v.x, z, row, col, idx), finish(v.y, z, row + 1, col, idx + 1),
                         finish(v.z, z, row + 2, col, idx + 2),
                         finish(v.w, z, row + 3, col, idx + 3));
    return;
  }
  [[unroll]] for (uint i = 0; i < 4; ++i) {
    if (row + i < p.m) y[idx + i] = IO_T(finish(v[i], z, row + i, col, idx + i));
  }
}
#endif

// The sums leave through shared memory, a row of fragments at a time: each
// subgroup stores EPI_FRAGS accumulators side by side (CM_M rows of EPI_W
// floats, padded to EPI_LD) in the A/B stages the K loop is done with, then
// its lanes finish them with wide stores along the rows (gemm_epilogue.glsl's
// store_cols4, 4 columns per lane: one row of 64 columns is 16 lanes' stores)
// or, B_NHWC, down the columns (store_rows4). A whole row of fragments where
// the stages hold one per subgroup, else half a row.
const uint WARPS = WARPS_M * WARPS_N;
const uint STAGE_FLOATS = (STAGES * (A_STAGE + B_STAGE)) / 2;
const uint EPI_FRAGS = WARPS * CM_M * (FRAGS_N * CM_N + 4) <= STAGE_FLOATS ? FRAGS_N
                       : WARPS * CM_M * (FRAGS_N / 2 * CM_N + 4) <= STAGE_FLOATS ? FRAGS_N / 2 : 1;
const uint EPI_W = EPI_FRAGS * CM_N;
const uint EPI_LD = EPI_W + 4;  // floats: rows start 4 banks apart
float staged(uint at) { return uintBitsToFloat(ab_sh[at >> 2][at & 3u]); }

void write_out(uint warp, uint warp_m, uint warp_n, uint z, uint split) {
  const uint lane = gl_LocalInvocationID.x % 32;
  const uint base = warp * CM_M * EPI_LD;
  [[unroll]] for (uint i = 0; i < FRAGS_M; ++i) {
    [[unroll]] for (uint j0 = 0; j0 < FRAGS_N; j0 += EPI_FRAGS) {
      [[unroll]] for (uint j = 0; j < EPI_FRAGS; ++j) {
        store_acc(acc[i][j0 + j], base + j * CM_N, EPI_LD);
      }
      stage_sync();
      const uint row0 = m0 + warp_m * WM + i * CM_M;
      const uint col0 = n0 + warp_n * WN + j0 * CM_N;
      for (uint e = lane * 4; e < CM_M * EPI_W; e += 128) {
#if B_NHWC
        // Lanes down the columns, 4 rows (output channels) each.
        const uint r = e % CM_M, col = e / CM_M;
        const uint at = base + r * EPI_LD + col;
        const vec4 v = vec4(staged(at), staged(at + EPI_LD), staged(at + 2 * EPI_LD),
                            staged(at + 3 * EPI_LD));
        store_rows4(v, z, split, row0 + r, col0 + col);
#else
        const uint r = e / EPI_W, col = e % EPI_W;
        const vec4 v = uintBitsToFloat(ab_sh[(base + r * EPI_LD + col) / 4]);
        store_cols4(v, z, split, row0 + r, col0 + col);
#endif
      }
      stage_sync();
    }
  }
}

void main() {
  const uint warp = gl_LocalInvocationID.x / 32;
  const uint warp_m = warp / WARPS_N;
  const uint warp_n = warp % WARPS_N;
  const uint z = gl_WorkGroupID.z / p.splits;
  const uint split = gl_WorkGroupID.z - z * p.splits;
  const uvec2 offsets = batch_offsets(z);
  a_base = offsets.x;
  b_base = offsets.y;
  m0 = gl_WorkGroupID.y * BM;
  n0 = gl_WorkGroupID.x * BN;
#if B_IM2COL
  init_b_loader();
#endif
  [[unroll]] for (uint i = 0; i < FRAGS_M; ++i) {
    [[unroll]] for (uint j = 0; j < FRAGS_N; ++j) acc[i][j] = acc_zero();
  }
  const uint k_begin = split * p.k_chunk;
  k_loop(k_begin, min(p.k, k_begin + p.k_chunk), warp_m, warp_n);
  write_out(warp, warp_m, warp_n, z, split);
}
