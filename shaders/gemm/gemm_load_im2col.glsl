// SPDX-License-Identifier: Apache-2.0
// Operand loader of the GEMM core (gemm_tile.glsl): B as the implicit im2col
// matrix of an NCHW image batch X, for Conv. Per group z (the batch index),
// op(B)[k][col] with k = (channel, ky, kx) and col = (image, oy, ox) is
// X[image][z * cin_g + channel][oy * SH - pad_top + ky * DH][ox * SW -
// pad_left + kx * DW], zero in the padding. b_base is the group's channel
// offset (b_batch0 = cin_g * in_h * in_w), ldb the elements per image and
// n_inner = OH * OW.
//
// Each thread gathers one fixed column for the whole reduction (THREADS is a
// multiple of BN). POINTWISE (1x1, stride 1, no pads) reads X directly, with
// 128-bit loads along the pixels when VEC_B. With GEMM_IM2COL_VIEW_ONLY
// defined, only the view (init_b_loader's per-thread column, and load_x)
// for a core with its own step functions (gemm_coopmat.glsl, which steps
// through 8 taps at a time itself).
#ifndef VKSERVE_GEMM_LOAD_IM2COL_GLSL_
#define VKSERVE_GEMM_LOAD_IM2COL_GLSL_

#if (THREADS % BN) != 0
#error "im2col tiles need THREADS to be a multiple of BN"
#endif

const uint KHW = KH * KW;

uint b_col;        // this thread's column within the tile (scalar loads)
bool b_col_valid;
uint x_base;       // X offset of (image, first channel of the group)
int iy0;           // POINTWISE: unused
int ix0;           // POINTWISE: the pixel within the image

void init_b_loader() {
  b_col = gl_LocalInvocationID.x % BN;
  const uint col = n0 + b_col;
  b_col_valid = col < p.n;
  const uint image = b_col_valid ? col / p.n_inner : 0;
  const uint pix = b_col_valid ? col - image * p.n_inner : 0;
  const uint oy = pix / p.out_w;
  const uint ox = pix - oy * p.out_w;
  x_base = image * p.ldb + b_base;
  iy0 = POINTWISE ? 0 : int(oy * SH) - p.pad_top;
  ix0 = POINTWISE ? int(pix) : int(ox * SW) - p.pad_left;
}

float load_x(uint k) {
  if (!b_col_valid || k >= p.k) return 0.0;
  if (POINTWISE) return float(b[x_base + k * p.n_inner + uint(ix0)]);
  const uint ci = k / KHW;
  const uint r = k - ci * KHW;
  const uint ky = r / KW;
  const uint kx = r - ky * KW;
  const int iy = iy0 + int(ky * DH);
  const int ix = ix0 + int(kx * DW);
  if (iy < 0 || ix < 0 || iy >= int(p.in_h) || ix >= int(p.in_w)) return 0.0;
  return float(b[x_base + (ci * p.in_h + uint(iy)) * p.in_w + uint(ix)]);
}

#ifndef GEMM_IM2COL_VIEW_ONLY
void load_b_step(uint k0, uint k_end) {
  const uint tid = gl_LocalInvocationID.x;
  if (VEC_B) {
    [[unroll]] for (uint r = 0; r < B_REGS; ++r) {
      const uint i = tid + r * THREADS;
      const uint k = k0 + i / (BN / 4);
      const uint col = n0 + (i % (BN / 4)) * 4;
      vec4 v = vec4(0.0);
      if (col < p.n && k < k_end) {
        const uint image = col / p.n_inner;
        const uint pix = col - image * p.n_inner;
        v = vec4(b4[(image * p.ldb + b_base + k * p.n_inner + pix) / 4]);
      }
      b_regs[r] = v;
    }
  } else {
    [[unroll]] for (uint r = 0; r < B_REGS; ++r) {
      [[unroll]] for (uint c = 0; c < 4; ++c) {
        const uint k = k0 + tid / BN + (r * 4 + c) * (THREADS / BN);
        b_regs[r][c] = k < k_end ? load_x(k) : 0.0;
      }
    }
  }
}

void store_b_step(uint s) {
  const uint tid = gl_LocalInvocationID.x;
  if (VEC_B) {
    [[unroll]] for (uint r = 0; r < B_REGS; ++r) {
      const uint i = tid + r * THREADS;
      store_b4(s, i / (BN / 4), i % (BN / 4), b_regs[r]);
    }
  } else {
    [[unroll]] for (uint r = 0; r < B_REGS; ++r) {
      [[unroll]] for (uint c = 0; c < 4; ++c) {
        const uint kk = tid / BN + (r * 4 + c) * (THREADS / BN);
        store_b1(s, kk, b_col, b_regs[r][c]);
      }
    }
  }
}

#endif  // GEMM_IM2COL_VIEW_ONLY

#endif  // VKSERVE_GEMM_LOAD_IM2COL_GLSL_
