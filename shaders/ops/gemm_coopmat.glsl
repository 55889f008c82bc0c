// SPDX-License-Identifier: Apache-2.0
// The GEMM engine's tensor-core compute core (VK_NV_cooperative_matrix):
// fp16 x fp16 products accumulated in fp32. The same operand loaders as the
// scalar core (gemm_tile.glsl) read fp32 A and B, round them to fp16 as they
// enter shared memory, and the workgroup's WARPS_M x WARPS_N subgroups each
// multiply a (BM / WARPS_M) x (BN / WARPS_N) block as CM_M x CM_N x CM_K
// cooperative matrices. Compiled by shaders/CMakeLists.txt per tile with
// the tile and the matrix shape as defines; the engine uses a variant only
// on a device whose subgroup is 32 wide and which reports that fp16/fp32
// matrix shape (runtime/ops/gemm_plan.h). Stages are double-buffered as in
// the scalar core. The epilogue (gemm_epilogue.glsl) runs per element after
// each accumulator passes through a per-subgroup shared staging block.
#version 450

#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(WARPS_M) || !defined(WARPS_N) || \
    !defined(CM_M) || !defined(CM_N) || !defined(CM_K) || !defined(THREADS)
#error "gemm_coopmat.glsl needs BM, BN, BK, WARPS_M, WARPS_N, CM_M, CM_N, CM_K, THREADS"
#endif
#if THREADS != WARPS_M * WARPS_N * 32 || (BM % (WARPS_M * CM_M)) != 0 || \
    (BN % (WARPS_N * CM_N)) != 0 || (BK % CM_K) != 0
#error "inconsistent coopmat tile defines"
#endif

layout(local_size_x = THREADS) in;

#include "gemm_interface.glsl"
#include "gemm_epilogue.glsl"

const uint WM = BM / WARPS_M;  // rows and columns of one subgroup's block
const uint WN = BN / WARPS_N;
const uint FRAGS_M = WM / CM_M;
const uint FRAGS_N = WN / CM_N;
const uint A_STRIDE = BM + 8;  // fp16 elements per shared row (k), padded
const uint B_STRIDE = BN + 8;
const uint A_REGS = BM * BK / 4 / THREADS;
const uint B_REGS = BK * BN / 4 / THREADS;

shared float16_t a_sh[2 * BK * A_STRIDE];  // [stage][k][m]
shared float16_t b_sh[2 * BK * B_STRIDE];  // [stage][k][n]
shared float c_stage[WARPS_M * WARPS_N * CM_M * CM_N];

vec4 a_regs[A_REGS];
vec4 b_regs[B_REGS];

uint a_base;
uint b_base;
uint m0;
uint n0;

void store_a1(uint s, uint k, uint m, float v) {
  a_sh[(s * BK + k) * A_STRIDE + m] = float16_t(v);
}
void store_a4(uint s, uint k, uint mq, vec4 v) {
  const uint o = (s * BK + k) * A_STRIDE + mq * 4;
  a_sh[o] = float16_t(v.x);
  a_sh[o + 1] = float16_t(v.y);
  a_sh[o + 2] = float16_t(v.z);
  a_sh[o + 3] = float16_t(v.w);
}
void store_b1(uint s, uint k, uint n, float v) {
  b_sh[(s * BK + k) * B_STRIDE + n] = float16_t(v);
}
void store_b4(uint s, uint k, uint nq, vec4 v) {
  const uint o = (s * BK + k) * B_STRIDE + nq * 4;
  b_sh[o] = float16_t(v.x);
  b_sh[o + 1] = float16_t(v.y);
  b_sh[o + 2] = float16_t(v.z);
  b_sh[o + 3] = float16_t(v.w);
}

#include "gemm_load_a.glsl"
#if B_IM2COL
#include "gemm_load_im2col.glsl"
#else
#include "gemm_load_b.glsl"
#endif

void main() {
  const uint warp = gl_LocalInvocationID.x / 32;
  const uint lane = gl_LocalInvocationID.x % 32;
  const uint warp_m = warp / WARPS_N;
  const uint warp_n = warp % WARPS_N;
  const uint z = gl_WorkGroupID.z / p.splits;
  const uint split = gl_WorkGroupID.z - z * p.splits;
  const uvec2 offsets = batch_offsets(z);
  a_base = offsets.x;
  b_base = offsets.y;
  m0 = gl_WorkGroupID.y * BM;
  n0 = gl_WorkGroupID.x * BN;
  init_b_loader();

  fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N> acc[FRAGS_M][FRAGS_N];
  [[unroll]] for (uint i = 0; i < FRAGS_M; ++i) {
    [[unroll]] for (uint j = 0; j < FRAGS_N; ++j) {
      acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>(0.0);
    }
  }

  const uint k_begin = split * p.k_chunk;
  const uint k_end = min(p.k, k_begin + p.k_chunk);
  uint stage = 0;
  if (k_begin < k_end) {
    load_a_step(k_begin, k_end);
    load_b_step(k_begin, k_end);
    store_a_step(0);
    store_b_step(0);
  }
  barrier();
  for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
    const bool more = k0 + BK < k_end;
    if (more) {
      load_a_step(k0 + BK, k_end);
      load_b_step(k0 + BK, k_end);
    }
    [[unroll]] for (uint kk = 0; kk < BK; kk += CM_K) {
      fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_K> a[FRAGS_M];
      fcoopmatNV<16, gl_ScopeSubgroup, CM_K, CM_N> b[FRAGS_N];
      // A is stored K-major: column-major M x K with stride A_STRIDE.
      [[unroll]] for (uint i = 0; i < FRAGS_M; ++i) {
        coopMatLoadNV(a[i], a_sh, (stage * BK + kk) * A_STRIDE + warp_m * WM + i * CM_M,
                      A_STRIDE, true);
      }
      [[unroll]] for (uint j = 0; j < FRAGS_N; ++j) {
        coopMatLoadNV(b[j], b_sh, (stage * BK + kk) * B_STRIDE + warp_n * WN + j * CM_N,
                      B_STRIDE, false);
      }
      [[unroll]] for (uint i = 0; i < FRAGS_M; ++i) {
        [[unroll]] for (uint j = 0; j < FRAGS_N; ++j) {
          acc[i][j] = coopMatMulAddNV(a[i], b[j], acc[i][j]);
        }
      }
    }
    if (more) {
      store_a_step(stage ^ 1u);
      store_b_step(stage ^ 1u);
    }
    barrier();
    stage ^= 1u;
  }

  // Each accumulator through this subgroup's staging block, then the
  // epilogue per element (lanes along a row: coalesced stores).
  const uint stage_base = warp * CM_M * CM_N;
  [[unroll]] for (uint i = 0; i < FRAGS_M; ++i) {
    [[unroll]] for (uint j = 0; j < FRAGS_N; ++j) {
      coopMatStoreNV(acc[i][j], c_stage, stage_base, CM_N, false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      for (uint e = lane; e < CM_M * CM_N; e += 32) {
        const uint row = m0 + warp_m * WM + i * CM_M + e / CM_N;
        const uint col = n0 + warp_n * WN + j * CM_N + e % CM_N;
        if (row < p.m && col < p.n) store1(c_stage[stage_base + e], z, split, row, col);
      }
      subgroupMemoryBarrierShared();
      subgroupBarrier();
    }
  }
}
