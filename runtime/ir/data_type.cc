// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ir/data_type.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace vkserve {

size_t DataTypeSize(DataType type) {
  switch (type) {
    case DataType::kFloat:
      return 4;
    case DataType::kUint8:
      return 1;
    case DataType::kInt8:
      return 1;
    case DataType::kUint16:
      return 2;
    case DataType::kInt16:
      return 2;
    case DataType::kInt32:
      return 4;
    case DataType::kInt64:
      return 8;
    case DataType::kBool:
      return 1;
    case DataType::kFloat16:
      return 2;
    case DataType::kDouble:
      return 8;
    case DataType::kUint32:
      return 4;
    case DataType::kUint64:
      return 8;
    case DataType::kComplex64:
      return 8;
    case DataType::kComplex128:
      return 16;
    case DataType::kBFloat16:
      return 2;
    case DataType::kUint2:
      return 1;
    case DataType::kInt2:
      return 1;
    default:
      return 0;
  }
}

std::string_view DataTypeName(DataType type) {
  switch (type) {
    case DataType::kUndefined:
      return "undefined";
    case DataType::kFloat:
      return "float";
    case DataType::kUint8:
      return "uint8";
    case DataType::kInt8:
      return "int8";
    case DataType::kUint16:
      return "uint16";
    case DataType::kInt16:
      return "int16";
    case DataType::kInt32:
      return "int32";
    case DataType::kInt64:
      return "int64";
    case DataType::kString:
      return "string";
    case DataType::kBool:
      return "bool";
    case DataType::kFloat16:
      return "float16";
    case DataType::kDouble:
      return "double";
    case DataType::kUint32:
      return "uint32";
    case DataType::kUint64:
      return "uint64";
    case DataType::kComplex64:
      return "complex64";
    case DataType::kComplex128:
      return "complex128";
    case DataType::kBFloat16:
      return "bfloat16";
    case DataType::kUint2:
      return "uint2";
    case DataType::kInt2:
      return "int2";
  }
  return "unknown";
}

std::string_view DataTypeKServeName(DataType type) {
  switch (type) {
    case DataType::kFloat:
      return "FP32";
    case DataType::kUint8:
      return "UINT8";
    case DataType::kInt8:
      return "INT8";
    case DataType::kUint16:
      return "UINT16";
    case DataType::kInt16:
      return "INT16";
    case DataType::kInt32:
      return "INT32";
    case DataType::kInt64:
      return "INT64";
    case DataType::kString:
      return "BYTES";
    case DataType::kBool:
      return "BOOL";
    case DataType::kFloat16:
      return "FP16";
    case DataType::kDouble:
      return "FP64";
    case DataType::kUint32:
      return "UINT32";
    case DataType::kUint64:
      return "UINT64";
    case DataType::kBFloat16:
      return "BF16";
    default:
      return "";
  }
}

bool IsKnownDataType(int32_t value) {
  return (value >= 0 && value <= 16) || value == 25 || value == 26;
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const int exponent = (h >> 10) & 0x1f;
  const uint32_t mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  }
  return sign ? -magnitude : magnitude;
}

uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t a = x & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return sign | 0x7E00u;   // NaN
  if (a >= 0x477FF000u) return sign | 0x7C00u;  // >= 65520 rounds to infinity
  if (a < 0x38800000u) {
    // Below 2^-14: a subnormal half, in units of 2^-24 (scaling by 2^24 is
    // exact; the default rounding mode is to nearest even). 1024 units is
    // the smallest normal's encoding, so rounding up into it is right.
    float v;
    std::memcpy(&v, &a, 4);
    return sign | static_cast<uint16_t>(std::nearbyint(v * 16777216.0f));
  }
  const uint32_t rounded = a + 0xFFFu + ((a >> 13) & 1u);
  return sign | static_cast<uint16_t>((rounded >> 13) - ((127u - 15u) << 10));
}

float SaturateToHalfRange(float f) {
  constexpr float kMax = 65504.0f;
  return std::isfinite(f) ? std::clamp(f, -kMax, kMax) : f;
}

}  // namespace vkserve
