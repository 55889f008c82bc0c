// SPDX-License-Identifier: Apache-2.0
// Operand loader of the GEMM core (gemm_tile.glsl): A as a strided matrix.
// load_a_step issues the global loads of one K step into a_regs; store_a_step
// writes them K-major into shared stage s. 128-bit loads along A's contiguous
// dimension when VEC_A; scalar loads ordered so that neighbouring invocations
// read neighbouring addresses otherwise. Zeros outside the matrix / split.
// The core defines the shared layout: store_a1(stage, k, m, value) and
// store_a4(stage, k, m / 4, values of m .. m + 3).
#ifndef VKSERVE_GEMM_LOAD_A_GLSL_
#define VKSERVE_GEMM_LOAD_A_GLSL_

float load_a(uint row, uint k, uint k_end) {
  if (row >= p.m || k >= k_end) return 0.0;
  return float(a[a_base + (A_TRANS ? k * p.lda + row : row * p.lda + k)]);
}

void load_a_step(uint k0, uint k_end) {
  const uint tid = gl_LocalInvocationID.x;
  [[unroll]] for (uint r = 0; r < A_REGS; ++r) {
    if (VEC_A && !A_TRANS) {  // 4 consecutive k of one row
      const uint i = tid + r * THREADS;
      const uint row = m0 + i / (BK / 4);
      const uint k = k0 + (i % (BK / 4)) * 4;
      a_regs[r] = row < p.m && k < k_end ? vec4(a4[(a_base + row * p.lda + k) / 4]) : vec4(0.0);
    } else if (VEC_A) {  // 4 consecutive rows of one k
      const uint i = tid + r * THREADS;
      const uint k = k0 + i / (BM / 4);
      const uint row = m0 + (i % (BM / 4)) * 4;
      a_regs[r] = row < p.m && k < k_end ? vec4(a4[(a_base + k * p.lda + row) / 4]) : vec4(0.0);
    } else {
      [[unroll]] for (uint c = 0; c < 4; ++c) {
        const uint i = tid + (r * 4 + c) * THREADS;
        a_regs[r][c] = A_TRANS ? load_a(m0 + i % BM, k0 + i / BM, k_end)
                               : load_a(m0 + i / BK, k0 + i % BK, k_end);
      }
    }
  }
}

void store_a_step(uint s) {
  const uint tid = gl_LocalInvocationID.x;
  [[unroll]] for (uint r = 0; r < A_REGS; ++r) {
    if (VEC_A && !A_TRANS) {
      const uint i = tid + r * THREADS;
      const uint m = i / (BK / 4);
      const uint kq = (i % (BK / 4)) * 4;
      [[unroll]] for (uint c = 0; c < 4; ++c) store_a1(s, kq + c, m, a_regs[r][c]);
    } else if (VEC_A) {
      const uint i = tid + r * THREADS;
      store_a4(s, i / (BM / 4), i % (BM / 4), a_regs[r]);
    } else {
      [[unroll]] for (uint c = 0; c < 4; ++c) {
        const uint i = tid + (r * 4 + c) * THREADS;
        const uint m = A_TRANS ? i % BM : i / BK;
        const uint k = A_TRANS ? i / BM : i % BK;
        store_a1(s, k, m, a_regs[r][c]);
      }
    }
  }
}

#endif  // VKSERVE_GEMM_LOAD_A_GLSL_
