// SPDX-License-Identifier: Apache-2.0
// Gemm/MatMul for skinny M (at most ROWS rows of op(A) per workgroup; batch-1
// classifier heads, decoder steps): bandwidth-bound, so B is streamed once
// with 128-bit loads and every invocation keeps several loads in flight.
// Part of the GEMM engine (interface in gemm_interface.glsl, epilogue in
// gemm_epilogue.glsl); gl_WorkGroupID.y is the block of ROWS
// output rows, gl_WorkGroupID.z = batch * splits + split.
//
//   B_TRANS (B stored [N, K]): each output column is a dot product over a
//     contiguous row of B. The workgroup is (LX, LY): LY columns, LX
//     invocations striding K for each, reduced through shared memory.
//   otherwise (B stored [K, N]): each invocation owns 4 consecutive columns;
//     the LY invocations of a column group stride K and are reduced through
//     shared memory.
// K may further be split across workgroups (PARTIAL; gemm_reduce finishes).
#version 450

#include "gemm_interface.glsl"
#include "gemm_epilogue.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

const uint ROWS = 4;
const uint LX = gl_WorkGroupSize.x;  // power of two
const uint LY = gl_WorkGroupSize.y;  // power of two

shared vec4 red[LY * LX];

uint a_base;
uint b_base;

// FP16 precision: operands rounded to fp16 as they are loaded (ROUND_F16).
float r1(float v) { return round_f16(v); }
vec4 r4(vec4 v) { return round_f16(v); }

// op(A)[row][k..k+3] for k < k_end (zeros beyond; rows are checked by callers).
vec4 load_a4_raw(uint row, uint k, uint k_end) {
  if (VEC_A && !A_TRANS) {
    return k < k_end ? vec4(a4[(a_base + row * p.lda + k) / 4]) : vec4(0.0);
  }
  vec4 v = vec4(0.0);
  [[unroll]] for (uint c = 0; c < 4; ++c) {
    if (k + c < k_end) v[c] = float(a[a_base + (A_TRANS ? (k + c) * p.lda + row : row * p.lda + k + c)]);
  }
  return v;
}

float load_a_raw(uint row, uint k) {
  return float(a[a_base + (A_TRANS ? k * p.lda + row : row * p.lda + k)]);
}

// B[col][k..k+3] (B_TRANS layout), zeros beyond k_end.
vec4 load_bt4_raw(uint col, uint k, uint k_end) {
  if (VEC_B) return k < k_end ? vec4(b4[(b_base + col * p.ldb + k) / 4]) : vec4(0.0);
  vec4 v = vec4(0.0);
  [[unroll]] for (uint c = 0; c < 4; ++c) {
    if (k + c < k_end) v[c] = float(b[b_base + col * p.ldb + k + c]);
  }
  return v;
}

// B[k][col..col+3] ([K, N] layout), zeros beyond N.
vec4 load_bn4_raw(uint k, uint col) {
  if (VEC_B) return vec4(b4[(b_base + k * p.ldb + col) / 4]);
  vec4 v = vec4(0.0);
  [[unroll]] for (uint c = 0; c < 4; ++c) {
    if (col + c < p.n) v[c] = float(b[b_base + k * p.ldb + col + c]);
  }
  return v;
}

vec4 load_a4(uint row, uint k, uint k_end) { return r4(load_a4_raw(row, k, k_end)); }
float load_a(uint row, uint k) { return r1(load_a_raw(row, k)); }
// An fp16 B (VKSERVE_B16) needs no rounding.
vec4 load_bt4(uint col, uint k, uint k_end) {
  return VKSERVE_B16 != 0 ? load_bt4_raw(col, k, k_end) : r4(load_bt4_raw(col, k, k_end));
}
vec4 load_bn4(uint k, uint col) { return VKSERVE_B16 != 0 ? load_bn4_raw(k, col) : r4(load_bn4_raw(k, col)); }

// Sums red[ty * LX + 0 .. LX) into red[ty * LX] (over x), or
// red[0 .. LY) * LX + tx into red[tx] (over y).
void reduce_x(uint tx, uint ty) {
  [[unroll]] for (uint s = LX / 2; s > 0; s >>= 1) {
    if (tx < s) red[ty * LX + tx] += red[ty * LX + tx + s];
    barrier();
  }
}

void reduce_y(uint tx, uint ty) {
  [[unroll]] for (uint s = LY / 2; s > 0; s >>= 1) {
    if (ty < s) red[ty * LX + tx] += red[(ty + s) * LX + tx];
    barrier();
  }
}

void main() {
  const uint tx = gl_LocalInvocationID.x;
  const uint ty = gl_LocalInvocationID.y;
  const uint z = gl_WorkGroupID.z / p.splits;
  const uint split = gl_WorkGroupID.z - z * p.splits;
  const uvec2 offsets = batch_offsets(z);
  a_base = offsets.x;
  b_base = offsets.y;
  const uint row0 = gl_WorkGroupID.y * ROWS;
  const uint rows = min(ROWS, p.m - row0);
  const uint k_begin = split * p.k_chunk;
  const uint k_end = min(p.k, k_begin + p.k_chunk);

  if (B_TRANS) {
    const uint col = gl_WorkGroupID.x * LY + ty;
    const bool live = col < p.n;
    vec4 acc[ROWS];
    [[unroll]] for (uint r = 0; r < ROWS; ++r) acc[r] = vec4(0.0);
    if (live) {
      // Two 128-bit loads of B in flight per iteration.
      uint k = k_begin + tx * 4;
      for (; k + LX * 4 < k_end; k += LX * 8) {
        const vec4 b0 = load_bt4(col, k, k_end);
        const vec4 b1 = load_bt4(col, k + LX * 4, k_end);
        [[unroll]] for (uint r = 0; r < ROWS; ++r) {
          if (r < rows) {
            acc[r] += load_a4(row0 + r, k, k_end) * b0 + load_a4(row0 + r, k + LX * 4, k_end) * b1;
          }
        }
      }
      if (k < k_end) {
        const vec4 b0 = load_bt4(col, k, k_end);
        [[unroll]] for (uint r = 0; r < ROWS; ++r) {
          if (r < rows) acc[r] += load_a4(row0 + r, k, k_end) * b0;
        }
      }
    }
    // Per row: reduce the LX partial dot products of every column.
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
      if (r >= rows) break;
      red[ty * LX + tx] = vec4(acc[r].x + acc[r].y + acc[r].z + acc[r].w);
      barrier();
      reduce_x(tx, ty);
      if (tx == 0 && live) store1(red[ty * LX].x, z, split, row0 + r, col);
      barrier();
    }
  } else {
    const uint col = (gl_WorkGroupID.x * LX + tx) * 4;
    const bool live = col < p.n;
    vec4 acc[ROWS];
    [[unroll]] for (uint r = 0; r < ROWS; ++r) acc[r] = vec4(0.0);
    if (live) {
      // Four rows of B in flight per iteration.
      uint k = k_begin + ty;
      for (; k + 3 * LY < k_end; k += 4 * LY) {
        const vec4 b0 = load_bn4(k, col);
        const vec4 b1 = load_bn4(k + LY, col);
        const vec4 b2 = load_bn4(k + 2 * LY, col);
        const vec4 b3 = load_bn4(k + 3 * LY, col);
        [[unroll]] for (uint r = 0; r < ROWS; ++r) {
          if (r < rows) {
            acc[r] += load_a(row0 + r, k) * b0 + load_a(row0 + r, k + LY) * b1 +
                      load_a(row0 + r, k + 2 * LY) * b2 + load_a(row0 + r, k + 3 * LY) * b3;
          }
        }
      }
      for (; k < k_end; k += LY) {
        const vec4 b0 = load_bn4(k, col);
        [[unroll]] for (uint r = 0; r < ROWS; ++r) {
          if (r < rows) acc[r] += load_a(row0 + r, k) * b0;
        }
      }
    }
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
      if (r >= rows) break;
      red[ty * LX + tx] = acc[r];
      barrier();
      reduce_y(tx, ty);
      if (ty == 0 && live) {
        const vec4 v = red[tx];
        if (VEC_OUT) {
          store4(v, z, split, row0 + r, col);
        } else {
          [[unroll]] for (uint c = 0; c < 4; ++c) {
            if (col + c < p.n) store1(v[c], z, split, row0 + r, col + c);
          }
        }
      }
      barrier();
    }
  }
}
