// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// DataType: tensor element types, numbered as ONNX's TensorProto.DataType (and
// the ORT format's TensorDataType, which uses the same numbers). Values and
// names are plain data; thread-compatible.
#ifndef VKSERVE_RUNTIME_IR_DATA_TYPE_H_
#define VKSERVE_RUNTIME_IR_DATA_TYPE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vkserve {

enum class DataType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  // 2-bit integers (ONNX 1.20). Files pack four to a byte; vkserve holds
  // them unpacked, one element per byte (int2 sign-extended), so every
  // kernel addresses them as 8-bit integers. Not expressible over KServe.
  kUint2 = 25,
  kInt2 = 26,
};

// Bytes per element as vkserve holds it (1 for the 2-bit types), or 0 for types without a fixed
// size (string, undefined, and numbers this build does not know).
size_t DataTypeSize(DataType type);

// ONNX-style name ("float", "int64", ...), or "unknown(<n>)"-free "unknown"
// for numbers outside the enum.
std::string_view DataTypeName(DataType type);

// KServe v2 datatype string ("FP32", "INT64", "BOOL", "BYTES", ...).
std::string_view DataTypeKServeName(DataType type);

// True for the numbers listed in the enum above (not the float8, int4 and
// float4 codes 17-24 between them).
bool IsKnownDataType(int32_t value);

// IEEE binary16 bits as float (exact: subnormals, infinities and NaN kept).
float HalfToFloat(uint16_t h);
// `f` as IEEE binary16 bits: round to nearest even, overflow to infinity,
// subnormals kept, NaN stays NaN.
uint16_t FloatToHalf(float f);
// `f` clamped to fp16's finite range (+-65504); infinities and NaN unchanged.
float SaturateToHalfRange(float f);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_IR_DATA_TYPE_H_
