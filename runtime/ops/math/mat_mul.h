// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// MatMul's attributes beyond ONNX's, set only by load-time rewrites (ONNX
// Runtime's FusedMatMul, runtime/lowering/contrib/fused_mat_mul.cc), so that a
// transposed or scaled product runs as one GEMM instead of Transpose and Mul
// dispatches around it. Like the fused epilogue's (activation.h), they are
// "_vkserve_" attributes on the node, so the rewritten graph stays a Graph.
//
//   _vkserve_trans_a (int 0/1): op(A) is A with its last two dims swapped;
//       ignored for a 1-D A (numpy's transpose of a vector is itself, and
//       onnxruntime ignores it likewise).
//   _vkserve_trans_b (int 0/1): the same for B.
//   _vkserve_scale (float): Y = scale * op(A) x op(B), applied before the
//       fused bias (input 3) and epilogue.
#ifndef VKSERVE_RUNTIME_OPS_MATH_MAT_MUL_H_
#define VKSERVE_RUNTIME_OPS_MATH_MAT_MUL_H_

namespace vkserve {

inline constexpr char kMatMulTransAAttr[] = "_vkserve_trans_a";
inline constexpr char kMatMulTransBAttr[] = "_vkserve_trans_b";
inline constexpr char kMatMulScaleAttr[] = "_vkserve_scale";

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_MATH_MAT_MUL_H_
