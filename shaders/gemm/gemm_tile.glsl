// SPDX-License-Identifier: Apache-2.0
// The GEMM engine's tiled core: every Conv / Gemm / MatMul tile variant is
// this one source, compiled by shaders/CMakeLists.txt with the tile as
// defines (BM x BN outputs per workgroup, BK reduction step, TM x TN outputs
// per thread, THREADS = (BM / TM) * (BN / TN)) and B_IM2COL choosing B's
// loader: a strided matrix (gemm_load_b.glsl) or Conv's implicit im2col view
// (gemm_load_im2col.glsl). A is always a strided matrix. Interface in
// gemm_interface.glsl, epilogue in gemm_epilogue.glsl.
//
// A workgroup computes a BM x BN block of one batch's product over the K
// range of its split (gl_WorkGroupID.z = batch * splits + split). K streams
// through two shared-memory stages of BK: while the workgroup multiplies one
// stage, each thread has already issued the global loads of the next step
// into registers, and stores them into the other stage afterwards (one
// barrier per step). Both operands sit in shared memory K-major ([BK][BM],
// [BK][BN]) whatever their layout in memory, rows padded by one vec4. A
// thread's TM x TN outputs are 4 x 4 blocks spread BM / (TM / 4) rows and
// BN / (TN / 4) columns apart, so its shared-memory reads are 128-bit and a
// subgroup's reads and global stores are contiguous.
#version 450

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(TM) || !defined(TN) || !defined(THREADS)
#error "gemm_tile.glsl needs BM, BN, BK, TM, TN and THREADS defined"
#endif
#if THREADS != (BM / TM) * (BN / TN) || (TM % 4) != 0 || (TN % 4) != 0
#error "inconsistent tile defines"
#endif

// A literal workgroup size: the compiler sizes its register budget from it.
layout(local_size_x = THREADS) in;

#include "gemm_interface.glsl"
#include "gemm_epilogue.glsl"

const uint THREADS_N = BN / TN;
const uint SUB_M = TM / 4;  // 4-row blocks per thread
const uint SUB_N = TN / 4;  // 4-column blocks per thread
// Per-thread registers of one K step, as vec4s (4 scalars each when scalar).
const uint A_REGS = BM * BK / 4 / THREADS;
const uint B_REGS = BK * BN / 4 / THREADS;

shared vec4 a_tile[2][BK][BM / 4 + 1];  // [stage][k][m]
shared vec4 b_tile[2][BK][BN / 4 + 1];  // [stage][k][n]

vec4 a_regs[A_REGS];
vec4 b_regs[B_REGS];

uint a_base;  // element offset of this batch's A and B
uint b_base;
uint m0;      // first output row and column of the block
uint n0;

// The loaders' shared-memory writes (K-major, 4 rows / columns per vec4).
void store_a1(uint s, uint k, uint m, float v) { a_tile[s][k][m / 4][m % 4] = round_f16(v); }
void store_a4(uint s, uint k, uint mq, vec4 v) { a_tile[s][k][mq] = round_f16(v); }
void store_b1(uint s, uint k, uint n, float v) { b_tile[s][k][n / 4][n % 4] = round_f16(v); }
void store_b4(uint s, uint k, uint nq, vec4 v) { b_tile[s][k][nq] = round_f16(v); }

#include "gemm_load_a.glsl"
#if B_IM2COL
#include "gemm_load_im2col.glsl"
#else
#include "gemm_load_b.glsl"
#endif

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint tx = tid % THREADS_N;
  const uint ty = tid / THREADS_N;
  const uint z = gl_WorkGroupID.z / p.splits;
  const uint split = gl_WorkGroupID.z - z * p.splits;
  const uvec2 offsets = batch_offsets(z);
  a_base = offsets.x;
  b_base = offsets.y;
  m0 = gl_WorkGroupID.y * BM;
  n0 = gl_WorkGroupID.x * BN;
  init_b_loader();

  vec4 acc[TM][SUB_N];
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    [[unroll]] for (uint j = 0; j < SUB_N; ++j) acc[i][j] = vec4(0.0);
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
    [[unroll]] for (uint kk = 0; kk < BK; ++kk) {
      vec4 av[SUB_M];
      vec4 bv[SUB_N];
      [[unroll]] for (uint i = 0; i < SUB_M; ++i) {
        av[i] = a_tile[stage][kk][i * (BM / 4 / SUB_M) + ty];
      }
      [[unroll]] for (uint j = 0; j < SUB_N; ++j) {
        bv[j] = b_tile[stage][kk][j * (BN / 4 / SUB_N) + tx];
      }
      [[unroll]] for (uint i = 0; i < SUB_M; ++i) {
        [[unroll]] for (uint c = 0; c < 4; ++c) {
          [[unroll]] for (uint j = 0; j < SUB_N; ++j) acc[i * 4 + c][j] += av[i][c] * bv[j];
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

  [[unroll]] for (uint i = 0; i < TM; ++i) {
    const uint row = m0 + (i / 4) * (BM / SUB_M) + ty * 4 + i % 4;
    [[unroll]] for (uint j = 0; j < SUB_N; ++j) {
      store_cols4(acc[i][j], z, split, row, n0 + j * (BN / SUB_N) + tx * 4);
    }
  }
}
