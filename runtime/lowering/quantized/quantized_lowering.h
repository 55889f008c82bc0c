// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Building blocks for lowering the quantized ONNX ops (QLinearMatMul,
// QLinearConv, MatMulInteger, ConvInteger, DynamicQuantizeLinear) into plain
// float ops that reuse the one GEMM engine through MatMul and Conv:
//
//   dequantize:  (float(q) - float(zero_point)) * float(scale)
//   requantize:  saturate(round_half_even(y / scale) + zero_point)
//
// Integer products of 8-bit operands and their sums stay exact in float up to
// 2^24, so MatMulInteger/ConvInteger match the integer definition for the
// inner sizes models use; the requantized ops round once, as onnxruntime's
// float-scaled requantization does. Pure functions of the rewrite context.
#ifndef VKSERVE_RUNTIME_LOWERING_QUANTIZED_QUANTIZED_LOWERING_H_
#define VKSERVE_RUNTIME_LOWERING_QUANTIZED_QUANTIZED_LOWERING_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/op/rewrite.h"

namespace vkserve {

// A Cast of `name` to `to`; returns the new value's name.
std::string AddCast(RewriteContext& ctx, const std::string& name, DataType to);

// The element type of `name` from an initializer or a declared type.
// UNIMPLEMENTED naming `what` when the file does not say.
absl::StatusOr<DataType> KnownDataType(const RewriteContext& ctx, const std::string& name,
                                       const std::string& what);

// `name` (a per-tensor or per-row/per-channel parameter) shaped to broadcast
// along axis 0 of a rank-`rank` operand: [n, 1, ..., 1]. Left as is when the
// file says it has one element (or rank <= 1).
std::string AlongAxis0(RewriteContext& ctx, const std::string& name, size_t rank);

// (float(q) - float(zero_point)) * float(scale); `zero_point` and `scale`
// may be "" (omitted). Returns the float value's name.
std::string AddDequantize(RewriteContext& ctx, const std::string& q, const std::string& scale,
                          const std::string& zero_point);

// Writes saturate(round(y / scale) + zero_point) as `out` of type `to`
// (int8, uint8, int16, uint16 or int32 — UNIMPLEMENTED otherwise).
// `zero_point` may be "".
absl::Status AddRequantize(RewriteContext& ctx, const std::string& y, const std::string& scale,
                           const std::string& zero_point, const std::string& out, DataType to);

// A float scalar initializer.
std::string AddFloatScalar(RewriteContext& ctx, std::string_view hint, float v);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_LOWERING_QUANTIZED_QUANTIZED_LOWERING_H_
