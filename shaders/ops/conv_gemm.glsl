// SPDX-License-Identifier: Apache-2.0
// Conv as an implicit GEMM (NCHW, fp32), included by the conv_gemm_<BM>x<BN>
// shaders, which define the tile as compile-time constants (so glslc unrolls
// every register-tile loop) and the matching literal workgroup size
// (BM / TM) * (BN / TN): BM output channels x BN output pixels per
// workgroup, BK reduction step, TM x TN outputs per thread (multiples of 4).
//
// Per group, Y[co][pixel] = sum_k W[co][k] * im2col(X)[k][pixel] with
// k = (ci, ky, kx) and pixel = (batch, oy, ox). K streams through two
// shared-memory stages: while the workgroup multiplies one, each thread has
// already issued the global loads of the next step into registers and
// stores them into the other stage (one barrier per step). A thread's TM x TN
// outputs are 4 x 4 blocks spread BM / (TM / 4) rows and BN / (TN / 4)
// columns apart, so its shared-memory reads are 128-bit and a warp's reads
// and global stores are contiguous. Shared rows are padded by one vec4.
//
// Specialized fast paths: POINTWISE (1x1, stride 1, no pads: im2col is X
// itself) and VEC_A / VEC_B / VEC_OUT (128-bit loads and stores when K, H*W
// and OH*OW are multiples of 4). The fused epilogue (bias, residual add
// before or after the activation) is applied in the store; PARTIAL writes
// the raw sums of one K split instead (conv_reduce.comp finishes them).
#extension GL_EXT_control_flow_attributes : enable

#include "activation.glsl"

layout(constant_id = 3) const uint KH = 1;
layout(constant_id = 4) const uint KW = 1;
layout(constant_id = 5) const uint SH = 1;
layout(constant_id = 6) const uint SW = 1;
layout(constant_id = 7) const uint DH = 1;
layout(constant_id = 8) const uint DW = 1;
layout(constant_id = 9) const bool POINTWISE = false;
layout(constant_id = 10) const bool VEC_A = false;
layout(constant_id = 11) const bool VEC_B = false;
layout(constant_id = 12) const bool VEC_OUT = false;
layout(constant_id = 13) const bool HAS_BIAS = false;
layout(constant_id = 14) const uint ACTIVATION = ACT_NONE;
layout(constant_id = 15) const uint RESIDUAL = 0;  // 1: before activation, 2: after
layout(constant_id = 16) const bool PARTIAL = false;

const uint THREADS_N = BN / TN;
const uint THREADS = (BM / TM) * THREADS_N;
const uint SUB_M = TM / 4;  // 4-row blocks per thread
const uint SUB_N = TN / 4;  // 4-column blocks per thread
const uint KHW = KH * KW;
// Per-thread registers of one K step, as vec4s (4 scalars each when not VEC_*).
const uint A_REGS = BM * BK / 4 / THREADS;
const uint B_REGS = BK * BN / 4 / THREADS;

layout(binding = 0) readonly buffer XBuf { float x[]; };
layout(binding = 0) readonly buffer XBuf4 { vec4 x4[]; };
layout(binding = 1) readonly buffer WBuf { float w[]; };
layout(binding = 1) readonly buffer WBuf4 { vec4 w4[]; };
layout(binding = 2) readonly buffer BiasBuf { float bias[]; };
layout(binding = 3) readonly buffer ResBuf { float res[]; };
layout(binding = 3) readonly buffer ResBuf4 { vec4 res4[]; };
layout(binding = 4) writeonly buffer YBuf { float y[]; };
layout(binding = 4) writeonly buffer YBuf4 { vec4 y4[]; };

layout(push_constant) uniform Params {
  uint c_in;     // input channels, all groups
  uint in_h;
  uint in_w;
  uint c_out;    // output channels, all groups
  uint out_hw;   // out_h * out_w
  uint out_w;
  uint cin_g;    // input channels per group
  uint cout_g;   // output channels per group
  uint k_total;  // cin_g * KH * KW
  uint pixels;   // batch * out_hw
  int pad_top;
  int pad_left;
  uint k_chunk;  // K per split, a multiple of BK
  uint splits;
  float alpha;
  float beta;
} p;

shared vec4 a_tile[2][BK][BM / 4 + 1];  // [stage][k][channel]
shared vec4 b_tile[2][BK][BN / 4 + 1];  // [stage][k][pixel]

vec4 a_regs[A_REGS];
vec4 b_regs[B_REGS];

uint group_id;
uint m0;
// This thread's im2col column for scalar B loads: fixed for the whole
// reduction because THREADS is a multiple of BN.
uint b_col;
bool b_col_valid;
uint x_base;  // X offset of (batch, first channel of the group)
int iy0;      // POINTWISE: unused
int ix0;      // POINTWISE: the pixel within the image

float load_x(uint k) {
  if (!b_col_valid || k >= p.k_total) return 0.0;
  if (POINTWISE) return x[x_base + k * p.out_hw + uint(ix0)];
  const uint ci = k / KHW;
  const uint r = k - ci * KHW;
  const uint ky = r / KW;
  const uint kx = r - ky * KW;
  const int iy = iy0 + int(ky * DH);
  const int ix = ix0 + int(kx * DW);
  if (iy < 0 || ix < 0 || iy >= int(p.in_h) || ix >= int(p.in_w)) return 0.0;
  return x[x_base + (ci * p.in_h + uint(iy)) * p.in_w + uint(ix)];
}

// Global loads of the K step starting at k0 into a_regs / b_regs.
void load_step(uint k0, uint k_end) {
  const uint tid = gl_LocalInvocationID.x;
  const uint w_row0 = group_id * p.cout_g + m0;
  if (VEC_A) {
    [[unroll]] for (uint r = 0; r < A_REGS; ++r) {
      const uint i = tid + r * THREADS;
      const uint m = i / (BK / 4);
      const uint k = k0 + (i % (BK / 4)) * 4;
      a_regs[r] = (m0 + m < p.cout_g && k < k_end) ? w4[((w_row0 + m) * p.k_total + k) / 4]
                                                  : vec4(0.0);
    }
  } else {
    [[unroll]] for (uint r = 0; r < A_REGS; ++r) {
      [[unroll]] for (uint c = 0; c < 4; ++c) {
        const uint i = tid + (r * 4 + c) * THREADS;
        const uint m = i / BK;
        const uint k = k0 + i % BK;
        a_regs[r][c] = (m0 + m < p.cout_g && k < k_end) ? w[(w_row0 + m) * p.k_total + k] : 0.0;
      }
    }
  }
  if (VEC_B) {
    [[unroll]] for (uint r = 0; r < B_REGS; ++r) {
      const uint i = tid + r * THREADS;
      const uint kk = i / (BN / 4);
      const uint n = gl_WorkGroupID.x * BN + (i % (BN / 4)) * 4;
      const uint k = k0 + kk;
      vec4 v = vec4(0.0);
      if (n < p.pixels && k < k_end) {
        const uint batch = n / p.out_hw;
        const uint pix = n - batch * p.out_hw;
        v = x4[((batch * p.c_in + group_id * p.cin_g + k) * p.out_hw + pix) / 4];
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

// Stores the registers of load_step into shared stage s.
void store_step(uint s) {
  const uint tid = gl_LocalInvocationID.x;
  if (VEC_A) {
    [[unroll]] for (uint r = 0; r < A_REGS; ++r) {
      const uint i = tid + r * THREADS;
      const uint m = i / (BK / 4);
      const uint kq = i % (BK / 4);
      [[unroll]] for (uint c = 0; c < 4; ++c) a_tile[s][kq * 4 + c][m / 4][m % 4] = a_regs[r][c];
    }
  } else {
    [[unroll]] for (uint r = 0; r < A_REGS; ++r) {
      [[unroll]] for (uint c = 0; c < 4; ++c) {
        const uint i = tid + (r * 4 + c) * THREADS;
        const uint m = i / BK;
        a_tile[s][i % BK][m / 4][m % 4] = a_regs[r][c];
      }
    }
  }
  if (VEC_B) {
    [[unroll]] for (uint r = 0; r < B_REGS; ++r) {
      const uint i = tid + r * THREADS;
      b_tile[s][i / (BN / 4)][i % (BN / 4)] = b_regs[r];
    }
  } else {
    [[unroll]] for (uint r = 0; r < B_REGS; ++r) {
      [[unroll]] for (uint c = 0; c < 4; ++c) {
        const uint kk = tid / BN + (r * 4 + c) * (THREADS / BN);
        b_tile[s][kk][b_col / 4][b_col % 4] = b_regs[r][c];
      }
    }
  }
}

float finish(float v, uint co, uint idx) {
  if (HAS_BIAS) v += bias[co];
  if (RESIDUAL == 1u) v += res[idx];
  v = apply_activation(ACTIVATION, v, p.alpha, p.beta);
  if (RESIDUAL == 2u) v += res[idx];
  return v;
}

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint tx = tid % THREADS_N;
  const uint ty = tid / THREADS_N;
  group_id = gl_WorkGroupID.z / p.splits;
  const uint split = gl_WorkGroupID.z - group_id * p.splits;
  m0 = gl_WorkGroupID.y * BM;
  const uint n0 = gl_WorkGroupID.x * BN;

  b_col = tid % BN;
  const uint n = n0 + b_col;
  b_col_valid = n < p.pixels;
  {
    const uint batch = b_col_valid ? n / p.out_hw : 0;
    const uint pix = b_col_valid ? n - batch * p.out_hw : 0;
    const uint oy = pix / p.out_w;
    const uint ox = pix - oy * p.out_w;
    x_base = (batch * p.c_in + group_id * p.cin_g) * p.in_h * p.in_w;
    iy0 = POINTWISE ? 0 : int(oy * SH) - p.pad_top;
    ix0 = POINTWISE ? int(pix) : int(ox * SW) - p.pad_left;
  }

  vec4 acc[TM][SUB_N];
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    [[unroll]] for (uint j = 0; j < SUB_N; ++j) acc[i][j] = vec4(0.0);
  }

  const uint k_begin = split * p.k_chunk;
  const uint k_end = min(p.k_total, k_begin + p.k_chunk);
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
      vec4 a[SUB_M];
      vec4 b[SUB_N];
      [[unroll]] for (uint i = 0; i < SUB_M; ++i) {
        a[i] = a_tile[stage][kk][i * (BM / 4 / SUB_M) + ty];
      }
      [[unroll]] for (uint j = 0; j < SUB_N; ++j) {
        b[j] = b_tile[stage][kk][j * (BN / 4 / SUB_N) + tx];
      }
      [[unroll]] for (uint i = 0; i < SUB_M; ++i) {
        [[unroll]] for (uint c = 0; c < 4; ++c) {
          [[unroll]] for (uint j = 0; j < SUB_N; ++j) acc[i * 4 + c][j] += a[i][c] * b[j];
        }
      }
    }
    if (more) store_step(stage ^ 1u);
    barrier();
    stage ^= 1u;
  }

  const uint out_offset = PARTIAL ? split * p.pixels * p.c_out : 0;
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    const uint m = m0 + (i / 4) * (BM / SUB_M) + ty * 4 + i % 4;
    if (m >= p.cout_g) continue;
    const uint co = group_id * p.cout_g + m;
    [[unroll]] for (uint j = 0; j < SUB_N; ++j) {
      const uint n_first = n0 + j * (BN / SUB_N) + tx * 4;
      if (VEC_OUT) {
        // out_hw % 4 == 0: the four pixels are in one image, 16-byte aligned.
        if (n_first >= p.pixels) continue;
        const uint batch = n_first / p.out_hw;
        const uint idx = (batch * p.c_out + co) * p.out_hw + n_first - batch * p.out_hw;
        vec4 v = acc[i][j];
        if (!PARTIAL) {
          if (HAS_BIAS) v += bias[co];
          if (RESIDUAL == 1u) v += res4[idx / 4];
          [[unroll]] for (uint c = 0; c < 4; ++c) {
            v[c] = apply_activation(ACTIVATION, v[c], p.alpha, p.beta);
          }
          if (RESIDUAL == 2u) v += res4[idx / 4];
        }
        y4[(out_offset + idx) / 4] = v;
      } else {
        [[unroll]] for (uint c = 0; c < 4; ++c) {
          const uint np = n_first + c;
          if (np >= p.pixels) continue;
          const uint batch = np / p.out_hw;
          const uint idx = (batch * p.c_out + co) * p.out_hw + np - batch * p.out_hw;
          const float v = acc[i][j][c];
          y[out_offset + idx] = PARTIAL ? v : finish(v, co, idx);
        }
      }
    }
  }
}
