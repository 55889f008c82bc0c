// SPDX-License-Identifier: Apache-2.0
// Tiled SGEMM body of Gemm/MatMul (interface in matmul_common.glsl), included
// by the matmul_tile_<BM>x<BN> shaders, which define the tile as compile-time
// constants (so glslc unrolls every register-tile loop) and the matching
// literal workgroup size (BM / TM) * (BN / TN).
//
// A workgroup computes a BM x BN block of one batch's output over the K range
// of its split (gl_WorkGroupID.z = batch * splits + split). K streams through
// two shared-memory stages of BK: while the workgroup multiplies one stage,
// each thread has already issued the global loads of the next step into
// registers, and stores them into the other stage afterwards (one barrier per
// step). Both operands sit in shared memory K-major (A as [BK][BM], B as
// [BK][BN]) whatever their layout in memory, with rows padded by one vec4.
// A thread's TM x TN outputs are 4 x 4 blocks spread BM / (TM / 4) rows and
// BN / (TN / 4) columns apart, so its shared-memory reads are 128-bit and a
// subgroup's reads and global stores are contiguous.
//
// Global loads are 128-bit along an operand's contiguous dimension when
// VEC_A / VEC_B (that dimension a multiple of 4); otherwise scalar, ordered
// so neighbouring invocations read neighbouring addresses. Edges (M, N, K
// not multiples of the tile) load zeros and skip stores.
#include "matmul_common.glsl"

const uint THREADS_N = BN / TN;
const uint THREADS = (BM / TM) * THREADS_N;
const uint SUB_M = TM / 4;  // 4-row blocks per thread
const uint SUB_N = TN / 4;  // 4-column blocks per thread
// Per-thread registers of one K step, as vec4s (4 scalars each when scalar).
const uint A_REGS = BM * BK / 4 / THREADS;
const uint B_REGS = BK * BN / 4 / THREADS;

shared vec4 a_tile[2][BK][BM / 4 + 1];  // [stage][k][m]
shared vec4 b_tile[2][BK][BN / 4 + 1];  // [stage][k][n]

vec4 a_regs[A_REGS];
vec4 b_regs[B_REGS];

uint a_base;  // element offset of this batch's A
uint b_base;
uint m0;      // first output row and column of the block
uint n0;

// op(A)[row][k], or 0 outside the matrix / split.
float load_a(uint row, uint k, uint k_end) {
  if (row >= p.m || k >= k_end) return 0.0;
  return a[a_base + (A_TRANS ? k * p.lda + row : row * p.lda + k)];
}

// op(B)[k][col], or 0 outside.
float load_b(uint k, uint col, uint k_end) {
  if (col >= p.n || k >= k_end) return 0.0;
  return b[b_base + (B_TRANS ? col * p.ldb + k : k * p.ldb + col)];
}

// Global loads of the K step starting at k0 into a_regs / b_regs.
void load_step(uint k0, uint k_end) {
  const uint tid = gl_LocalInvocationID.x;
  [[unroll]] for (uint r = 0; r < A_REGS; ++r) {
    if (VEC_A && !A_TRANS) {  // 4 consecutive k of one row
      const uint i = tid + r * THREADS;
      const uint row = m0 + i / (BK / 4);
      const uint k = k0 + (i % (BK / 4)) * 4;
      a_regs[r] = row < p.m && k < k_end ? a4[(a_base + row * p.lda + k) / 4] : vec4(0.0);
    } else if (VEC_A) {  // 4 consecutive rows of one k
      const uint i = tid + r * THREADS;
      const uint k = k0 + i / (BM / 4);
      const uint row = m0 + (i % (BM / 4)) * 4;
      a_regs[r] = row < p.m && k < k_end ? a4[(a_base + k * p.lda + row) / 4] : vec4(0.0);
    } else {
      [[unroll]] for (uint c = 0; c < 4; ++c) {
        const uint i = tid + (r * 4 + c) * THREADS;
        a_regs[r][c] = A_TRANS ? load_a(m0 + i % BM, k0 + i / BM, k_end)
                               : load_a(m0 + i / BK, k0 + i % BK, k_end);
      }
    }
  }
  [[unroll]] for (uint r = 0; r < B_REGS; ++r) {
    if (VEC_B && !B_TRANS) {  // 4 consecutive columns of one k
      const uint i = tid + r * THREADS;
      const uint k = k0 + i / (BN / 4);
      const uint col = n0 + (i % (BN / 4)) * 4;
      b_regs[r] = col < p.n && k < k_end ? b4[(b_base + k * p.ldb + col) / 4] : vec4(0.0);
    } else if (VEC_B) {  // 4 consecutive k of one column
      const uint i = tid + r * THREADS;
      const uint col = n0 + i / (BK / 4);
      const uint k = k0 + (i % (BK / 4)) * 4;
      b_regs[r] = col < p.n && k < k_end ? b4[(b_base + col * p.ldb + k) / 4] : vec4(0.0);
    } else {
      [[unroll]] for (uint c = 0; c < 4; ++c) {
        const uint i = tid + (r * 4 + c) * THREADS;
        b_regs[r][c] = B_TRANS ? load_b(k0 + i % BK, n0 + i / BK, k_end)
                               : load_b(k0 + i / BN, n0 + i % BN, k_end);
      }
    }
  }
}

// Stores the registers of load_step into shared stage s, K-major.
void store_step(uint s) {
  const uint tid = gl_LocalInvocationID.x;
  [[unroll]] for (uint r = 0; r < A_REGS; ++r) {
    if (VEC_A && !A_TRANS) {
      const uint i = tid + r * THREADS;
      const uint m = i / (BK / 4);
      const uint kq = (i % (BK / 4)) * 4;
      [[unroll]] for (uint c = 0; c < 4; ++c) a_tile[s][kq + c][m / 4][m % 4] = a_regs[r][c];
    } else if (VEC_A) {
      const uint i = tid + r * THREADS;
      a_tile[s][i / (BM / 4)][i % (BM / 4)] = a_regs[r];
    } else {
      [[unroll]] for (uint c = 0; c < 4; ++c) {
        const uint i = tid + (r * 4 + c) * THREADS;
        const uint m = A_TRANS ? i % BM : i / BK;
        const uint k = A_TRANS ? i / BM : i % BK;
        a_tile[s][k][m / 4][m % 4] = a_regs[r][c];
      }
    }
  }
  [[unroll]] for (uint r = 0; r < B_REGS; ++r) {
    if (VEC_B && !B_TRANS) {
      const uint i = tid + r * THREADS;
      b_tile[s][i / (BN / 4)][i % (BN / 4)] = b_regs[r];
    } else if (VEC_B) {
      const uint i = tid + r * THREADS;
      const uint n = i / (BK / 4);
      const uint kq = (i % (BK / 4)) * 4;
      [[unroll]] for (uint c = 0; c < 4; ++c) b_tile[s][kq + c][n / 4][n % 4] = b_regs[r][c];
    } else {
      [[unroll]] for (uint c = 0; c < 4; ++c) {
        const uint i = tid + (r * 4 + c) * THREADS;
        const uint n = B_TRANS ? i / BK : i % BN;
        const uint k = B_TRANS ? i % BK : i / BN;
        b_tile[s][k][n / 4][n % 4] = b_regs[r][c];
      }
    }
  }
}

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

  vec4 acc[TM][SUB_N];
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    [[unroll]] for (uint j = 0; j < SUB_N; ++j) acc[i][j] = vec4(0.0);
  }

  const uint k_begin = split * p.k_chunk;
  const uint k_end = min(p.k, k_begin + p.k_chunk);
  uint stage = 0;
  if (k_begin < k_end) {
    load_step(k_begin, k_end);
    store_step(0);
  }
  barrier();
  for (uint k0 = k_begin; k0 < k_end; k0 += BK) {
    const bool more = k0 + BK < k_end;
    if (more) load_step(k0 + BK, k_end);
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
    if (more) store_step(stage ^ 1u);
    barrier();
    stage ^= 1u;
  }

  [[unroll]] for (uint i = 0; i < TM; ++i) {
    const uint row = m0 + (i / 4) * (BM / SUB_M) + ty * 4 + i % 4;
    if (row >= p.m) continue;
    [[unroll]] for (uint j = 0; j < SUB_N; ++j) {
      const uint col = n0 + j * (BN / SUB_N) + tx * 4;
      if (VEC_OUT) {
        if (col < p.n) store4(acc[i][j], z, split, row, col);
      } else {
        [[unroll]] for (uint c = 0; c < 4; ++c) {
          if (col + c < p.n) store1(acc[i][j][c], z, split, row, col + c);
        }
      }
    }
  }
}
