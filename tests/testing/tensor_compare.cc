// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Tensor comparison for the reference tests: see tensor_compare.h.
#include "tests/testing/tensor_compare.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "runtime/ir/data_type.h"

namespace vkserve::testing {
namespace {

template <typename T>
T Load(const HostTensor& t, int64_t i) {
  T v;
  std::memcpy(&v, t.data.data() + static_cast<size_t>(i) * sizeof(T), sizeof(T));
  return v;
}

double HalfToDouble(uint16_t h) {
  const double sign = (h & 0x8000) != 0 ? -1.0 : 1.0;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  if (exponent == 0x1f) {
    return mantissa == 0 ? sign * std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::quiet_NaN();
  }
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);  // subnormal or zero
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

bool IsFloat(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
         t == DataType::kBFloat16;
}

std::string IndexString(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] > 0) {
      index[d] = flat % shape[d];
      flat /= shape[d];
    }
  }
  return ShapeString(index);
}

std::string ValueString(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

std::string HeaderMismatch(const HostTensor& got, const HostTensor& want) {
  if (got.dtype != want.dtype || got.shape != want.shape) {
    return "got " + TensorTypeString(got) + ", want " + TensorTypeString(want);
  }
  const size_t bytes = static_cast<size_t>(want.num_elements()) * DataTypeSize(want.dtype);
  if (got.data.size() != bytes || want.data.size() != bytes) {
    return "byte sizes " + std::to_string(got.data.size()) + " and " +
           std::to_string(want.data.size()) + " do not fit " + TensorTypeString(want);
  }
  return "";
}

}  // namespace

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string TensorTypeString(const HostTensor& t) {
  return std::string(DataTypeName(t.dtype)) + ShapeString(t.shape);
}

double ElementAsDouble(const HostTensor& t, int64_t i) {
  switch (t.dtype) {
    case DataType::kFloat:
      return Load<float>(t, i);
    case DataType::kDouble:
      return Load<double>(t, i);
    case DataType::kFloat16:
      return HalfToDouble(Load<uint16_t>(t, i));
    case DataType::kBFloat16:
      return std::bit_cast<float>(static_cast<uint32_t>(Load<uint16_t>(t, i)) << 16);
    case DataType::kInt8:
    case DataType::kInt2:
      return Load<int8_t>(t, i);
    case DataType::kUint8:
    case DataType::kUint2:
      return Load<uint8_t>(t, i);
    case DataType::kInt16:
      return Load<int16_t>(t, i);
    case DataType::kUint16:
      return Load<uint16_t>(t, i);
    case DataType::kInt32:
      return Load<int32_t>(t, i);
    case DataType::kUint32:
      return Load<uint32_t>(t, i);
    case DataType::kInt64:
      return static_cast<double>(Load<int64_t>(t, i));
    case DataType::kUint64:
      return static_cast<double>(Load<uint64_t>(t, i));
    case DataType::kBool:
      return Load<uint8_t>(t, i) != 0 ? 1 : 0;
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

double MaxAbsFinite(const HostTensor& t) {
  if (!IsFloat(t.dtype)) return 0;
  double m = 0;
  const int64_t n = static_cast<int64_t>(t.data.size() / DataTypeSize(t.dtype));
  for (int64_t i = 0; i < n; ++i) {
    const double v = ElementAsDouble(t, i);
    if (std::isfinite(v)) m = std::max(m, std::abs(v));
  }
  return m;
}

double MaxAbsDiff(const HostTensor& got, const HostTensor& want) {
  if (!HeaderMismatch(got, want).empty()) return 0;
  double m = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const double d = std::abs(ElementAsDouble(got, i) - ElementAsDouble(want, i));
    if (std::isfinite(d)) m = std::max(m, d);
  }
  return m;
}

std::string CompareTensors(const HostTensor& got, const HostTensor& want, Tolerance tol) {
  if (std::string m = HeaderMismatch(got, want); !m.empty()) return m;
  const int64_t n = want.num_elements();
  const size_t size = DataTypeSize(want.dtype);
  const bool is_float = IsFloat(want.dtype);
  int64_t mismatches = 0;
  int64_t worst = -1;
  double worst_ratio = 0;
  double max_abs_error = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!is_float) {
      // Integers and bools: exact, compared as bytes (int64 beyond 2^53 too).
      if (std::memcmp(got.data.data() + i * size, want.data.data() + i * size, size) != 0) {
        ++mismatches;
        if (worst < 0) worst = i;
      }
      continue;
    }
    const double g = ElementAsDouble(got, i);
    const double w = ElementAsDouble(want, i);
    double ratio = 0;
    if (std::isnan(w) || std::isnan(g)) {
      ratio = std::isnan(w) && std::isnan(g) ? 0 : std::numeric_limits<double>::infinity();
    } else if (std::isinf(w) || std::isinf(g)) {
      ratio = g == w ? 0 : std::numeric_limits<double>::infinity();
    } else {
      const double err = std::abs(g - w);
      max_abs_error = std::max(max_abs_error, err);
      const double allowed = tol.atol + tol.rtol * std::abs(w);
      if (err > allowed)
        ratio = allowed > 0 ? err / allowed : std::numeric_limits<double>::infinity();
    }
    if (ratio > 0) {
      ++mismatches;
      if (worst < 0 || ratio > worst_ratio) {
        worst = i;
        worst_ratio = ratio;
      }
    }
  }
  if (mismatches == 0) return "";
  const double g = ElementAsDouble(got, worst);
  const double w = ElementAsDouble(want, worst);
  std::string m = std::to_string(mismatches) + " of " + std::to_string(n) + " elements of " +
                  TensorTypeString(want) + " differ; worst at " + IndexString(want.shape, worst) +
                  " (flat " + std::to_string(worst) + "): got " + ValueString(g) + ", want " +
                  ValueString(w);
  if (is_float && (!std::isfinite(g) || !std::isfinite(w))) {
    m += " (NaN and infinities must match exactly); max |diff| of finite elements " +
         ValueString(max_abs_error);
  } else if (is_float) {
    m += ", |diff| " + ValueString(std::abs(g - w)) + " > allowed " +
         ValueString(tol.atol + tol.rtol * std::abs(w)) + " (atol " + ValueString(tol.atol) +
         " + rtol " + ValueString(tol.rtol) + " * |want|); max |diff| of finite elements " +
         ValueString(max_abs_error);
  }
  return m;
}

std::string CompareBitwise(const HostTensor& got, const HostTensor& want) {
  if (std::string m = HeaderMismatch(got, want); !m.empty()) return m;
  const size_t size = DataTypeSize(want.dtype);
  int64_t differing = 0;
  int64_t first = -1;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    if (std::memcmp(got.data.data() + i * size, want.data.data() + i * size, size) != 0) {
      if (first < 0) first = i;
      ++differing;
    }
  }
  if (differing == 0) return "";
  return std::to_string(differing) + " of " + std::to_string(want.num_elements()) +
         " elements of " + TensorTypeString(want) + " differ bitwise; first at " +
         IndexString(want.shape, first) + ": " + ValueString(ElementAsDouble(got, first)) + " vs " +
         ValueString(ElementAsDouble(want, first));
}

}  // namespace vkserve::testing
