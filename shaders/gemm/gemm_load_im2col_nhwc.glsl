// SPDX-License-Identifier: Apache-2.0
// Operand loader of the tensor-core GEMM core (gemm_coopmat.glsl's "_nhwc"
// variants): B as the implicit im2col matrix of a channels-last (NHWC)
// fp16 image batch X, for Conv with one group, as CUTLASS's implicit GEMM
// reads it. op(B)[k][col] with k = (ky, kx, channel) and col = (image, oy,
// ox) is X[image][oy * SH - pad_top + ky * DH][ox * SW - pad_left + kx * DW]
// [channel], zero in the padding. K is ordered so that 8 consecutive k are
// 8 consecutive channels of one tap: with C % 8 == 0 (the planner's
// condition) each unit is one 16-byte load, all in or all out of the image.
// C = K / (KH * KW); ldb carries OH (the output rows per image: the output
// view of an NHWC conv has n_inner = 1, so it cannot say it).
//
// Each thread keeps one fixed column (output pixel) for the whole reduction
// (THREADS is a multiple of BN) and loads B_UNITS units of 8 channels per K
// step, stored as [n][k] rows of shared memory.
#ifndef VKSERVE_GEMM_LOAD_IM2COL_NHWC_GLSL_
#define VKSERVE_GEMM_LOAD_IM2COL_NHWC_GLSL_

#if (THREADS % BN) != 0
#error "im2col tiles need THREADS to be a multiple of BN"
#endif

const uint KHW = KH * KW;

bool b_col_valid;
uint x_base;     // X offset of this column's image
int iy0;         // top-left input pixel of this column's window
int ix0;
uint channels;   // C: elements per input pixel

void init_b_loader() {
  const uint col = n0 + gl_LocalInvocationID.x % BN;
  b_col_valid = col < p.n;
  const uint row = b_col_valid ? col / p.out_w : 0;  // image * OH + oy
  const uint ox = b_col_valid ? col - row * p.out_w : 0;
  const uint image = row / p.ldb;
  const uint oy = row - image * p.ldb;
  channels = p.k / KHW;
  x_base = b_base + image * p.in_h * p.in_w * channels;
  iy0 = int(oy * SH) - p.pad_top;
  ix0 = int(ox * SW) - p.pad_left;
}

// The 8 channels from k (a multiple of 8) of this thread's column.
uvec4 load_x8_channels(uint k, uint k_end) {
  if (!b_col_valid || k >= k_end) return uvec4(0);
  const uint tap = k / channels;
  const uint ci = k - tap * channels;
  const uint ky = tap / KW;
  const uint kx = tap - ky * KW;
  const int iy = iy0 + int(ky * DH);
  const int ix = ix0 + int(kx * DW);
  if (uint(iy) >= p.in_h || uint(ix) >= p.in_w) return uvec4(0);
  return b8[(x_base + (uint(iy) * p.in_w + uint(ix)) * channels + ci) / 8];
}

uvec2 b_unit(uint i) { return uvec2(i % BN, (i / BN) * 8); }

void load_b_step(uint k0, uint k_end) {
  [[unroll]] for (uint u = 0; u < B_UNITS; ++u) {
    const uvec2 rc = b_unit(gl_LocalInvocationID.x + u * THREADS);
    b_st[u] = load_x8_channels(k0 + rc.y, k_end);
  }
}

#endif  // VKSERVE_GEMM_LOAD_IM2COL_NHWC_GLSL_
