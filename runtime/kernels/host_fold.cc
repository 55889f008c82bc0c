// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Host folding helpers: see host_fold.h.
#include "runtime/kernels/host_fold.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

template <typename T>
T Load(const HostTensor& t, int64_t i) {
  T v;
  std::memcpy(&v, t.data.data() + i * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
void Store(HostTensor* t, int64_t i, T v) {
  std::memcpy(t->data.data() + i * sizeof(T), &v, sizeof(T));
}

float BFloat16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t FloatToBFloat16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

// double -> int64 without undefined behaviour: truncates, saturates, NaN is 0.
int64_t DoubleToInt(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (v <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

}  // namespace

bool IsFoldableType(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat:
    case DataType::kUint8:
    case DataType::kInt8:
    case DataType::kUint16:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kBool:
    case DataType::kFloat16:
    case DataType::kDouble:
    case DataType::kUint32:
    case DataType::kUint64:
    case DataType::kBFloat16:
    case DataType::kUint2:
    case DataType::kInt2:
      return true;
    default:
      return false;
  }
}

bool IsFloatType(DataType dtype) {
  return dtype == DataType::kFloat || dtype == DataType::kDouble || dtype == DataType::kFloat16 ||
         dtype == DataType::kBFloat16;
}

HostTensor ZeroTensor(DataType dtype, std::vector<int64_t> shape) {
  HostTensor t;
  t.dtype = dtype;
  t.data.assign(static_cast<size_t>(NumElements(shape)) * DataTypeSize(dtype), 0);
  t.shape = std::move(shape);
  return t;
}

double ElementAsDouble(const HostTensor& t, int64_t i) {
  switch (t.dtype) {
    case DataType::kFloat:
      return Load<float>(t, i);
    case DataType::kDouble:
      return Load<double>(t, i);
    case DataType::kFloat16:
      return HalfToFloat(Load<uint16_t>(t, i));
    case DataType::kBFloat16:
      return BFloat16ToFloat(Load<uint16_t>(t, i));
    case DataType::kUint64:
      return static_cast<double>(Load<uint64_t>(t, i));
    default:
      return static_cast<double>(ElementAsInt(t, i));
  }
}

int64_t ElementAsInt(const HostTensor& t, int64_t i) {
  switch (t.dtype) {
    case DataType::kUint8:
    case DataType::kUint2:
      return Load<uint8_t>(t, i);
    case DataType::kInt8:
    case DataType::kInt2:
      return Load<int8_t>(t, i);
    case DataType::kUint16:
      return Load<uint16_t>(t, i);
    case DataType::kInt16:
      return Load<int16_t>(t, i);
    case DataType::kInt32:
      return Load<int32_t>(t, i);
    case DataType::kInt64:
      return Load<int64_t>(t, i);
    case DataType::kUint32:
      return Load<uint32_t>(t, i);
    case DataType::kUint64:
      return static_cast<int64_t>(Load<uint64_t>(t, i));
    case DataType::kBool:
      return Load<uint8_t>(t, i) != 0 ? 1 : 0;
    default:
      return DoubleToInt(ElementAsDouble(t, i));
  }
}

void SetElementFromDouble(HostTensor* t, int64_t i, double v) {
  switch (t->dtype) {
    case DataType::kFloat:
      return Store<float>(t, i, static_cast<float>(v));
    case DataType::kDouble:
      return Store<double>(t, i, v);
    case DataType::kFloat16:
      return Store<uint16_t>(t, i, FloatToHalf(static_cast<float>(v)));
    case DataType::kBFloat16:
      return Store<uint16_t>(t, i, FloatToBFloat16(static_cast<float>(v)));
    case DataType::kBool:
      return Store<uint8_t>(t, i, v != 0 ? 1 : 0);
    case DataType::kUint64:
      if (v >= 9223372036854775808.0 && v < 18446744073709551616.0) {
        return Store<uint64_t>(t, i, static_cast<uint64_t>(v));
      }
      return SetElementFromInt(t, i, DoubleToInt(v));
    default:
      return SetElementFromInt(t, i, DoubleToInt(v));
  }
}

void SetElementFromInt(HostTensor* t, int64_t i, int64_t v) {
  switch (t->dtype) {
    case DataType::kUint8:
      return Store<uint8_t>(t, i, static_cast<uint8_t>(v));
    case DataType::kInt8:
      return Store<int8_t>(t, i, static_cast<int8_t>(v));
    // The 2-bit types wrap, as ONNX's Cast to them does.
    case DataType::kUint2:
      return Store<uint8_t>(t, i, static_cast<uint8_t>(v & 3));
    case DataType::kInt2:
      return Store<int8_t>(t, i, static_cast<int8_t>(((v & 3) ^ 2) - 2));
    case DataType::kUint16:
      return Store<uint16_t>(t, i, static_cast<uint16_t>(v));
    case DataType::kInt16:
      return Store<int16_t>(t, i, static_cast<int16_t>(v));
    case DataType::kInt32:
      return Store<int32_t>(t, i, static_cast<int32_t>(v));
    case DataType::kInt64:
      return Store<int64_t>(t, i, v);
    case DataType::kUint32:
      return Store<uint32_t>(t, i, static_cast<uint32_t>(v));
    case DataType::kUint64:
      return Store<uint64_t>(t, i, static_cast<uint64_t>(v));
    case DataType::kBool:
      return Store<uint8_t>(t, i, v != 0 ? 1 : 0);
    default:
      return SetElementFromDouble(t, i, static_cast<double>(v));
  }
}

void CopyElement(const HostTensor& src, int64_t src_index, HostTensor* dst, int64_t dst_index) {
  const size_t size = DataTypeSize(src.dtype);
  std::memcpy(dst->data.data() + dst_index * size, src.data.data() + src_index * size, size);
}

absl::StatusOr<HostTensor> ConvertTensor(const HostTensor& t, DataType to) {
  if (!IsFoldableType(t.dtype) || !IsFoldableType(to)) {
    return absl::UnimplementedError(absl::StrCat("cannot convert ",
                                                 std::string(DataTypeName(t.dtype)), " to ",
                                                 std::string(DataTypeName(to)), " on the host"));
  }
  HostTensor out = ZeroTensor(to, t.shape);
  const int64_t n = t.num_elements();
  const bool via_double = IsFloatType(t.dtype) || IsFloatType(to);
  for (int64_t i = 0; i < n; ++i) {
    if (to == DataType::kBool) {
      SetElementFromInt(&out, i, ElementAsDouble(t, i) != 0 ? 1 : 0);
    } else if (via_double) {
      SetElementFromDouble(&out, i, ElementAsDouble(t, i));
    } else {
      SetElementFromInt(&out, i, ElementAsInt(t, i));
    }
  }
  return out;
}

std::shared_ptr<const HostTensor> Share(HostTensor t) {
  return std::make_shared<const HostTensor>(std::move(t));
}

bool ShouldFold(const InferContext& ctx, int64_t output_elements) {
  return output_elements <= ctx.max_fold_elements && AllInputsHostKnown(ctx);
}

void SetAliasOutput(InferContext& ctx, std::vector<int64_t> shape) {
  const TensorDesc& in = *ctx.input(0);
  TensorDesc& out = ctx.outputs[0];
  out.dtype = in.dtype;
  out.shape = std::move(shape);
  out.value = nullptr;
  if (in.value != nullptr && in.num_elements() <= ctx.max_fold_elements) {
    HostTensor t = *in.value;
    t.shape = out.shape;
    out.value = Share(std::move(t));
  }
}

BroadcastIndex::BroadcastIndex(const std::vector<int64_t>& input_shape,
                               const std::vector<int64_t>& output_shape)
    : out_shape_(output_shape), strides_(output_shape.size(), 0) {
  const size_t offset = output_shape.size() - input_shape.size();
  const std::vector<int64_t> in_strides = Strides(input_shape);
  for (size_t i = 0; i < input_shape.size(); ++i) {
    strides_[offset + i] = input_shape[i] == 1 ? 0 : in_strides[i];
  }
}

int64_t BroadcastIndex::operator()(int64_t output_index) const {
  int64_t in = 0;
  for (int k = static_cast<int>(out_shape_.size()) - 1; k >= 0; --k) {
    const int64_t c = output_index % out_shape_[k];
    output_index /= out_shape_[k];
    in += c * strides_[k];
  }
  return in;
}

absl::StatusOr<std::vector<int64_t>> HostInts(const HostTensor& t, const std::string& what) {
  if (t.shape.size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a 1-D tensor, got shape ", ShapeString(t.shape)));
  }
  if (!IsFoldableType(t.dtype) || IsFloatType(t.dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be an integer tensor, got ", std::string(DataTypeName(t.dtype))));
  }
  std::vector<int64_t> out(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = ElementAsInt(t, static_cast<int64_t>(i));
  return out;
}

absl::StatusOr<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      return absl::InvalidArgumentError(
          absl::StrCat("axis ", a, " is out of range for rank ", rank));
    }
    const int64_t n = a < 0 ? a + rank : a;
    if (seen[n]) return absl::InvalidArgumentError(absl::StrCat("axis ", a, " is repeated"));
    seen[n] = true;
    out.push_back(n);
  }
  return out;
}

}  // namespace vkserve
