// SPDX-License-Identifier: Apache-2.0
// The interface of the GEMM engine's shaders (gemm_tile.glsl variants, gemv,
// gemm_reduce): one binding layout, one set of spec constants and one
// push-constant block, filled by runtime/kernels/gemm/gemm_engine.cc for every path.
//
// Per batch z, Y[z] = epilogue(alpha * op(A[z]) x op(B[z])). op(A) is M x K,
// stored [M, K] (or [K, M] when A_TRANS) with row stride lda; op(B) is K x N,
// stored [K, N] (or [N, K] when B_TRANS) with row stride ldb, or read as the
// implicit im2col matrix of an NCHW image batch (gemm_load_im2col.glsl). The
// batch index splits into up to three dims with their own A / B element
// strides (0 broadcasts).
//
// The output view places element (z, row, col) of the product: col splits
// into (image, pixel) = (col / n_inner, col % n_inner), and the element lives
// at z * y_batch + row * y_stride_m + image * y_stride_image + pixel. A dense
// [batch, M, N] output has n_inner = N; a convolution's NCHW output has
// n_inner = OH * OW. Split-K partial sums are dense [split][batch][M][N].
#ifndef VKSERVE_GEMM_INTERFACE_GLSL_
#define VKSERVE_GEMM_INTERFACE_GLSL_

#extension GL_EXT_control_flow_attributes : enable

#include "activation.glsl"
#include "precision.glsl"

layout(constant_id = 3) const bool A_TRANS = false;
layout(constant_id = 4) const bool B_TRANS = false;
layout(constant_id = 5) const bool VEC_A = false;    // 128-bit loads along A's contiguous dim
layout(constant_id = 6) const bool VEC_B = false;    // 128-bit loads along B's contiguous dim
layout(constant_id = 7) const bool VEC_OUT = false;  // 128-bit stores (n_inner % 4 == 0)
layout(constant_id = 8) const bool HAS_C = false;
layout(constant_id = 9) const uint ACTIVATION = ACT_NONE;
layout(constant_id = 10) const uint RESIDUAL = 0;  // 1: before activation, 2: after
layout(constant_id = 11) const bool PARTIAL = false;  // write raw split-K sums
// The im2col view (B_IM2COL variants only): window and 1x1 fast path.
layout(constant_id = 12) const uint KH = 1;
layout(constant_id = 13) const uint KW = 1;
layout(constant_id = 14) const uint SH = 1;
layout(constant_id = 15) const uint SW = 1;
layout(constant_id = 16) const uint DH = 1;
layout(constant_id = 17) const uint DW = 1;
layout(constant_id = 18) const bool POINTWISE = false;  // 1x1, stride 1, no pads
// FP16 precision: the operands are rounded to fp16 as they enter shared
// memory (the products and sums stay fp32), as the cooperative-matrix
// kernels compute.
layout(constant_id = 19) const bool ROUND_F16 = false;
// 16-byte loads of an operand stored in fp16 (8 halves; the coopmat
// kernels only): its contiguous extent, row stride and batch offsets are
// multiples of 8.
layout(constant_id = 20) const bool VEC8_A = false;
layout(constant_id = 21) const bool VEC8_B = false;

// v rounded to the nearest fp16 value (ties to even), kept in fp32. Done on
// the bits: a packHalf2x16 / unpackHalf2x16 round trip may be folded away
// by a driver's compiler (the H100's is). Subnormals round to multiples of
// 2^-24; beyond fp16's range the result is +-inf. In the VKSERVE_F16 variants
// every operand is stored in fp16 and so already exact: rounding again
// would change nothing and cost ALU work per element (the likely reason the
// fp16 GEMV took twice the fp32 one's time on the H200; not yet re-timed).
#if VKSERVE_F16
const bool ROUND_OPERANDS = false;
#else
const bool ROUND_OPERANDS = ROUND_F16;
#endif
float round_f16(float v) {
  if (!ROUND_OPERANDS) return v;
  const float a = abs(v);
  if (a >= 65520.0) return v * (1.0 / 0.0);
  if (a < 6.103515625e-05) return roundEven(v * 16777216.0) * (1.0 / 16777216.0);
  const uint u = floatBitsToUint(v);
  return uintBitsToFloat((u + 0x0FFFu + ((u >> 13) & 1u)) & 0xFFFFE000u);
}

vec4 round_f16(vec4 v) {
  return ROUND_OPERANDS ? vec4(round_f16(v.x), round_f16(v.y), round_f16(v.z), round_f16(v.w)) : v;
}

// The tensors' element type: fp32, or fp16 in the VKSERVE_F16 variants (models
// stored in float16; the arithmetic stays fp32). Split-K partial sums are
// fp32 either way.
#if VKSERVE_F16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define IO_T float16_t
#define IO_T4 f16vec4
#else
#define IO_T float
#define IO_T4 vec4
#endif

// VKSERVE_B16 (the "_b16" variants, fp32 tensors only): B alone is stored in fp16,
// as FP16 precision stores weights (runtime/passes/fp16_weights.h).
#if VKSERVE_B16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define B_T float16_t
#define B_T4 f16vec4
#else
#define B_T IO_T
#define B_T4 IO_T4
#endif

layout(binding = 0) readonly buffer ABuf { IO_T a[]; };
layout(binding = 0) readonly buffer ABuf4 { IO_T4 a4[]; };
layout(binding = 1) readonly buffer BBuf { B_T b[]; };
layout(binding = 1) readonly buffer BBuf4 { B_T4 b4[]; };
layout(binding = 2) readonly buffer CBuf { IO_T c[]; };
layout(binding = 3) readonly buffer ResBuf { IO_T res[]; };
layout(binding = 3) readonly buffer ResBuf4 { IO_T4 res4[]; };
layout(binding = 4) writeonly buffer YBuf { IO_T y[]; };
layout(binding = 4) writeonly buffer YBuf4 { IO_T4 y4[]; };
layout(binding = 4) writeonly buffer PartBuf { float part[]; };
layout(binding = 4) writeonly buffer PartBuf4 { vec4 part4[]; };

// 32 words: the 128 bytes every Vulkan device offers.
layout(push_constant) uniform Params {
  uint m;
  uint n;
  uint k;
  uint lda;           // row stride of A as stored
  uint ldb;           // row stride of B as stored; im2col: elements per image
  uint batch_mid;     // sizes of batch dims 1 and 2 (1 when absent)
  uint batch_inner;
  uint a_batch0;      // A element strides of batch dims 0..2
  uint a_batch1;
  uint a_batch2;
  uint b_batch0;      // B element strides of batch dims 0..2
  uint b_batch1;
  uint b_batch2;
  uint batch;         // product of the batch dims
  uint k_chunk;       // K per split, a multiple of the kernel's K step
  uint splits;
  uint c_stride_m;    // C element strides (0 where broadcast)
  uint c_stride_n;
  uint c_batch;       // C element stride per batch index z
  uint n_inner;       // output view (see above)
  uint y_batch;
  uint y_stride_m;
  uint y_stride_image;
  float alpha;
  float beta;
  float act_alpha;
  float act_beta;
  uint in_h;          // im2col: input image size, output width, padding
  uint in_w;
  uint out_w;
  int pad_top;
  int pad_left;
} p;

// Element offsets of batch z's A and B.
uvec2 batch_offsets(uint z) {
  const uint b2 = z % p.batch_inner;
  const uint rest = z / p.batch_inner;
  const uint b1 = rest % p.batch_mid;
  const uint b0 = rest / p.batch_mid;
  return uvec2(b0 * p.a_batch0 + b1 * p.a_batch1 + b2 * p.a_batch2,
               b0 * p.b_batch0 + b1 * p.b_batch1 + b2 * p.b_batch2);
}

// Y's element index of product element (z, row, col).
uint output_index(uint z, uint row, uint col) {
  const uint image = col / p.n_inner;
  return z * p.y_batch + row * p.y_stride_m + image * p.y_stride_image + (col - image * p.n_inner);
}

#endif  // VKSERVE_GEMM_INTERFACE_GLSL_
