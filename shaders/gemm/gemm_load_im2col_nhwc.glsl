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
// Threads are laid out along K first, as CUTLASS's: the BK / 8 threads next
// to each other load the BK / 8 consecutive 16-byte units of one output
// pixel's taps, so a warp reads 32 / (BK / 8) pixels' runs of contiguous
// channels rather than 32 scattered units. Each thread therefore keeps one
// K offset within the step (its tap decomposed once per step) and B_UNITS
// fixed columns (each one's window origin found once), stored as [n][k]
// rows of shared memory.
#ifndef VKSERVE_GEMM_LOAD_IM2COL_NHWC_GLSL_
#define VKSERVE_GEMM_LOAD_IM2COL_NHWC_GLSL_

#if (THREADS % (BK / 8)) != 0 || (BN % (THREADS * 8 / BK)) != 0
#error "the NHWC loader needs THREADS a multiple of BK / 8 and BN of THREADS * 8 / BK"
#endif

const uint KHW = KH * KW;
const uint B_KCHUNKS = BK / 8;  // 16-byte units of one column per step

bool b_col_valid[B_UNITS];
uint x_base[B_UNITS];  // X offset of each column's image
int iy0[B_UNITS];      // top-left input pixel of each column's window
int ix0[B_UNITS];
uint channels;         // C: elements per input pixel

uvec2 b_unit(uint i) { return uvec2(i / B_KCHUNKS, (i % B_KCHUNKS) * 8); }

void init_b_loader() {
  channels = p.k / KHW;
  [[unroll]] for (uint u = 0; u < B_UNITS; ++u) {
    const uint col = n0 + b_unit(gl_LocalInvocationID.x + u * THREADS).x;
    b_col_valid[u] = col < p.n;
    const uint row = b_col_valid[u] ? col / p.out_w : 0;  // image * OH + oy
    const uint ox = b_col_valid[u] ? col - row * p.out_w : 0;
    const uint image = row / p.ldb;
    const uint oy = row - image * p.ldb;
    x_base[u] = b_base + image * p.in_h * p.in_w * channels;
    iy0[u] = int(oy * SH) - p.pad_top;
    ix0[u] = int(ox * SW) - p.pad_left;
  }
}

// Each unit: the 8 channels from k (a multiple of 8; the same for every
// unit of this thread) of its column, zero outside the image.
void load_b_step(uint k0, uint k_end, uint set) {
  const uint k = k0 + (gl_LocalInvocationID.x % B_KCHUNKS) * 8;
  const bool k_valid = k < k_end;
  const uint tap = k / channels;
  const uint ci = k - tap * channels;
  const uint ky = tap / KW;
  const uint kx = tap - ky * KW;
  [[unroll]] for (uint u = 0; u < B_UNITS; ++u) {
    const int iy = iy0[u] + int(ky * DH);
    const int ix = ix0[u] + int(kx * DW);
    b_st[set][u] = uvec4(0);
    if (k_valid && b_col_valid[u] && uint(iy) < p.in_h && uint(ix) < p.in_w) {
      b_st[set][u] = b8[(x_base[u] + (uint(iy) * p.in_w + uint(ix)) * channels + ci) / 8];
    }
  }
}

#endif  // VKSERVE_GEMM_LOAD_IM2COL_NHWC_GLSL_
