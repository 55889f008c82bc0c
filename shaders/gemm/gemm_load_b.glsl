// SPDX-License-Identifier: Apache-2.0
// Operand loader of the GEMM core (gemm_tile.glsl): B as a strided matrix,
// the mirror of gemm_load_a.glsl (128-bit loads when VEC_B; the core's
// store_b1 / store_b4 write shared memory).
#ifndef VKSERVE_GEMM_LOAD_B_GLSL_
#define VKSERVE_GEMM_LOAD_B_GLSL_

void init_b_loader() {}

float load_b(uint k, uint col, uint k_end) {
  if (col >= p.n || k >= k_end) return 0.0;
  return float(b[b_base + (B_TRANS ? col * p.ldb + k : k * p.ldb + col)]);
}

void load_b_step(uint k0, uint k_end) {
  const uint tid = gl_LocalInvocationID.x;
  [[unroll]] for (uint r = 0; r < B_REGS; ++r) {
    if (VEC_B && !B_TRANS) {  // 4 consecutive columns of one k
      const uint i = tid + r * THREADS;
      const uint k = k0 + i / (BN / 4);
      const uint col = n0 + (i % (BN / 4)) * 4;
      b_regs[r] = col < p.n && k < k_end ? vec4(b4[(b_base + k * p.ldb + col) / 4]) : vec4(0.0);
    } else if (VEC_B) {  // 4 consecutive k of one column
      const uint i = tid + r * THREADS;
      const uint col = n0 + i / (BK / 4);
      const uint k = k0 + (i % (BK / 4)) * 4;
      b_regs[r] = col < p.n && k < k_end ? vec4(b4[(b_base + col * p.ldb + k) / 4]) : vec4(0.0);
    } else {
      [[unroll]] for (uint c = 0; c < 4; ++c) {
        const uint i = tid + (r * 4 + c) * THREADS;
        b_regs[r][c] = B_TRANS ? load_b(k0 + i % BK, n0 + i / BK, k_end)
                               : load_b(k0 + i / BN, n0 + i % BN, k_end);
      }
    }
  }
}

void store_b_step(uint s) {
  const uint tid = gl_LocalInvocationID.x;
  [[unroll]] for (uint r = 0; r < B_REGS; ++r) {
    if (VEC_B && !B_TRANS) {
      const uint i = tid + r * THREADS;
      store_b4(s, i / (BN / 4), i % (BN / 4), b_regs[r]);
    } else if (VEC_B) {
      const uint i = tid + r * THREADS;
      const uint n = i / (BK / 4);
      const uint kq = (i % (BK / 4)) * 4;
      [[unroll]] for (uint c = 0; c < 4; ++c) store_b1(s, kq + c, n, b_regs[r][c]);
    } else {
      [[unroll]] for (uint c = 0; c < 4; ++c) {
        const uint i = tid + (r * 4 + c) * THREADS;
        const uint n = B_TRANS ? i / BK : i % BN;
        const uint k = B_TRANS ? i % BK : i / BN;
        store_b1(s, k, n, b_regs[r][c]);
      }
    }
  }
}

#endif  // VKSERVE_GEMM_LOAD_B_GLSL_
