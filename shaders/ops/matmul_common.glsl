// SPDX-License-Identifier: Apache-2.0
// Interface shared by the Gemm/MatMul shaders (matmul_tile_*, gemv_*,
// gemm_reduce): one binding layout, one push-constant block and one fused
// epilogue, so runtime/ops/matmul_kernel.cc fills the same parameters for
// every path.
//
// Per batch b, Y[b] = epilogue(alpha * op(A[b]) x op(B[b])), where the
// epilogue adds beta * C (broadcast through its row / column strides), the
// residual before or after the activation, and applies the activation.
// op(A) is M x K (stored [M, K], or [K, M] when A_TRANS); op(B) is K x N
// (stored [K, N], or [N, K] when B_TRANS). Y is dense [batch, M, N]. The
// batch index splits into up to three dims whose A / B element strides come
// in the push constants (0 broadcasts).
#ifndef VKSERVE_MATMUL_COMMON_GLSL_
#define VKSERVE_MATMUL_COMMON_GLSL_

#extension GL_EXT_control_flow_attributes : enable

#include "activation.glsl"

layout(constant_id = 3) const bool A_TRANS = false;
layout(constant_id = 4) const bool B_TRANS = false;
layout(constant_id = 5) const bool VEC_A = false;    // 128-bit loads along A's contiguous dim
layout(constant_id = 6) const bool VEC_B = false;    // 128-bit loads along B's contiguous dim
layout(constant_id = 7) const bool VEC_OUT = false;  // N % 4 == 0: 128-bit stores
layout(constant_id = 8) const bool HAS_C = false;
layout(constant_id = 9) const uint ACTIVATION = ACT_NONE;
layout(constant_id = 10) const uint RESIDUAL = 0;  // 1: before activation, 2: after
layout(constant_id = 11) const bool PARTIAL = false;  // write raw split-K sums

layout(binding = 0) readonly buffer ABuf { float a[]; };
layout(binding = 0) readonly buffer ABuf4 { vec4 a4[]; };
layout(binding = 1) readonly buffer BBuf { float b[]; };
layout(binding = 1) readonly buffer BBuf4 { vec4 b4[]; };
layout(binding = 2) readonly buffer CBuf { float c[]; };
layout(binding = 3) readonly buffer ResBuf { float res[]; };
layout(binding = 3) readonly buffer ResBuf4 { vec4 res4[]; };
layout(binding = 4) writeonly buffer YBuf { float y[]; };
layout(binding = 4) writeonly buffer YBuf4 { vec4 y4[]; };

layout(push_constant) uniform Params {
  uint m;
  uint n;
  uint k;
  uint lda;          // row stride of A as stored
  uint ldb;          // row stride of B as stored
  uint c_stride_m;   // C element strides (0 where broadcast)
  uint c_stride_n;
  uint batch_mid;    // sizes of batch dims 1 and 2 (1 when absent)
  uint batch_inner;
  uint a_batch0;     // A element strides of batch dims 0..2
  uint a_batch1;
  uint a_batch2;
  uint b_batch0;
  uint b_batch1;
  uint b_batch2;
  uint batch;        // product of the batch dims
  uint k_chunk;      // K per split, a multiple of the kernel's K step
  uint splits;
  float alpha;
  float beta;
  float act_alpha;
  float act_beta;
} p;

// Element offsets of batch `z`'s A and B.
uvec2 batch_offsets(uint z) {
  const uint b2 = z % p.batch_inner;
  const uint rest = z / p.batch_inner;
  const uint b1 = rest % p.batch_mid;
  const uint b0 = rest / p.batch_mid;
  return uvec2(b0 * p.a_batch0 + b1 * p.a_batch1 + b2 * p.a_batch2,
               b0 * p.b_batch0 + b1 * p.b_batch1 + b2 * p.b_batch2);
}

// The fused epilogue of the output element (row, col) at dense index idx.
float finish(float v, uint row, uint col, uint idx) {
  v *= p.alpha;
  if (HAS_C) v += p.beta * c[row * p.c_stride_m + col * p.c_stride_n];
  if (RESIDUAL == 1u) v += res[idx];
  v = apply_activation(ACTIVATION, v, p.act_alpha, p.act_beta);
  if (RESIDUAL == 2u) v += res[idx];
  return v;
}

// The same for four consecutive columns; idx is 16-byte aligned (VEC_OUT).
vec4 finish4(vec4 v, uint row, uint col, uint idx) {
  v *= p.alpha;
  if (HAS_C) {
    const uint base = row * p.c_stride_m + col * p.c_stride_n;
    v += p.beta * vec4(c[base], c[base + p.c_stride_n], c[base + 2u * p.c_stride_n],
                       c[base + 3u * p.c_stride_n]);
  }
  if (RESIDUAL == 1u) v += res4[idx / 4u];
  if (ACTIVATION != ACT_NONE) {
    [[unroll]] for (uint i = 0; i < 4; ++i) {
      v[i] = apply_activation(ACTIVATION, v[i], p.act_alpha, p.act_beta);
    }
  }
  if (RESIDUAL == 2u) v += res4[idx / 4u];
  return v;
}

// Stores the sums of element (row, col) of batch z: raw into split's slice
// of the partial buffer, or finished into Y.
void store1(float v, uint z, uint split, uint row, uint col) {
  const uint idx = (z * p.m + row) * p.n + col;
  if (PARTIAL) {
    y[split * p.batch * p.m * p.n + idx] = v;
  } else {
    y[idx] = finish(v, row, col, idx);
  }
}

void store4(vec4 v, uint z, uint split, uint row, uint col) {
  const uint idx = (z * p.m + row) * p.n + col;
  if (PARTIAL) {
    y4[(split * p.batch * p.m * p.n + idx) / 4u] = v;
  } else {
    y4[idx / 4u] = finish4(v, row, col, idx);
  }
}

#endif  // VKSERVE_MATMUL_COMMON_GLSL_
