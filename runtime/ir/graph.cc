// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ir/graph.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace vkserve {
namespace {

float BFloat16ToFloat(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

}  // namespace

int64_t HostTensor::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(n, d, &n)) return INT64_MAX;  // loaders bound shapes far below this
  }
  return n;
}

int64_t HostTensor::GetInt(int64_t i) const {
  const uint8_t* p = data.data();
  switch (dtype) {
    case DataType::kInt64: {
      int64_t v;
      std::memcpy(&v, p + 8 * i, 8);
      return v;
    }
    case DataType::kInt32: {
      int32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      return v;
    }
    case DataType::kUint32: {
      uint32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      return v;
    }
    case DataType::kUint64: {
      uint64_t v;
      std::memcpy(&v, p + 8 * i, 8);
      return static_cast<int64_t>(v);
    }
    case DataType::kInt16: {
      int16_t v;
      std::memcpy(&v, p + 2 * i, 2);
      return v;
    }
    case DataType::kUint16: {
      uint16_t v;
      std::memcpy(&v, p + 2 * i, 2);
      return v;
    }
    case DataType::kInt8:
    case DataType::kInt2:
      return static_cast<int8_t>(p[i]);
    case DataType::kUint2:
    case DataType::kUint8:
    case DataType::kBool:
      return p[i];
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kFloat16:
    case DataType::kBFloat16: {
      // Truncates toward zero; NaN is 0 and out-of-range values saturate
      // (a plain cast would be undefined behaviour).
      const double v = GetDouble(i);
      if (std::isnan(v)) return 0;
      if (v >= 9223372036854775807.0) return INT64_MAX;
      if (v <= -9223372036854775808.0) return INT64_MIN;
      return static_cast<int64_t>(v);
    }
    default:
      return 0;
  }
}

double HostTensor::GetDouble(int64_t i) const {
  switch (dtype) {
    case DataType::kFloat: {
      float v;
      std::memcpy(&v, data.data() + 4 * i, 4);
      return v;
    }
    case DataType::kDouble: {
      double v;
      std::memcpy(&v, data.data() + 8 * i, 8);
      return v;
    }
    case DataType::kFloat16: {
      uint16_t v;
      std::memcpy(&v, data.data() + 2 * i, 2);
      return HalfToFloat(v);
    }
    case DataType::kBFloat16: {
      uint16_t v;
      std::memcpy(&v, data.data() + 2 * i, 2);
      return BFloat16ToFloat(v);
    }
    default:
      return static_cast<double>(GetInt(i));
  }
}

std::vector<int64_t> HostTensor::ToInts() const {
  std::vector<int64_t> out(static_cast<size_t>(num_elements()));
  for (int64_t i = 0; i < num_elements(); ++i) out[i] = GetInt(i);
  return out;
}

HostTensor HostTensor::FromInts(const std::vector<int64_t>& values, std::vector<int64_t> shape) {
  HostTensor t;
  t.dtype = DataType::kInt64;
  t.shape = std::move(shape);
  t.data.resize(values.size() * 8);
  if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

HostTensor HostTensor::FromFloats(const std::vector<float>& values, std::vector<int64_t> shape) {
  HostTensor t;
  t.dtype = DataType::kFloat;
  t.shape = std::move(shape);
  t.data.resize(values.size() * 4);
  if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

const Attribute* Node::FindAttribute(const std::string& attr_name) const {
  auto it = attributes.find(attr_name);
  return it == attributes.end() ? nullptr : &it->second;
}

int64_t Node::GetInt(const std::string& attr_name, int64_t default_value) const {
  const Attribute* a = FindAttribute(attr_name);
  return a != nullptr && a->type == Attribute::Type::kInt ? a->i : default_value;
}

float Node::GetFloat(const std::string& attr_name, float default_value) const {
  const Attribute* a = FindAttribute(attr_name);
  return a != nullptr && a->type == Attribute::Type::kFloat ? a->f : default_value;
}

std::string Node::GetString(const std::string& attr_name, const std::string& default_value) const {
  const Attribute* a = FindAttribute(attr_name);
  return a != nullptr && a->type == Attribute::Type::kString ? a->s : default_value;
}

std::vector<int64_t> Node::GetInts(const std::string& attr_name,
                                   std::vector<int64_t> default_value) const {
  const Attribute* a = FindAttribute(attr_name);
  return a != nullptr && a->type == Attribute::Type::kInts ? a->ints : default_value;
}

std::vector<float> Node::GetFloats(const std::string& attr_name,
                                   std::vector<float> default_value) const {
  const Attribute* a = FindAttribute(attr_name);
  return a != nullptr && a->type == Attribute::Type::kFloats ? a->floats : default_value;
}

std::string Node::Describe() const {
  return absl::StrCat(op_type, " (node '", name, "', domain '", domain.empty() ? "ai.onnx" : domain,
                      "', opset ", opset, ")");
}

}  // namespace vkserve
