// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/lowering/quantized/quantized_lowering.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "runtime/lowering/rewrite_attributes.h"

namespace vkserve {
namespace {

// Whether the file says `name` holds exactly one element.
bool KnownSingleElement(const RewriteContext& ctx, const std::string& name) {
  const auto shape = ctx.known_shape(name);
  if (!shape) return false;
  for (const Dim& d : *shape) {
    if (!d.is_fixed() || d.value != 1) return false;
  }
  return true;
}

}  // namespace

std::string AddCast(RewriteContext& ctx, const std::string& name, DataType to) {
  const std::string out =
      ctx.NewValueName(absl::StrCat(name, "_as_", std::string(DataTypeName(to))));
  ctx.AddNode("Cast", {name}, {out}, 19).attributes["to"] = IntAttribute(static_cast<int64_t>(to));
  return out;
}

absl::StatusOr<DataType> KnownDataType(const RewriteContext& ctx, const std::string& name,
                                       const std::string& what) {
  if (const HostTensor* t = ctx.initializer(name)) return t->dtype;
  if (const TensorType* type = ctx.declared_type(name)) return type->dtype;
  return absl::UnimplementedError(
      absl::StrCat("the element type of ", what, " '", name, "' must be declared in the file"));
}

std::string AlongAxis0(RewriteContext& ctx, const std::string& name, size_t rank) {
  if (rank <= 1 || KnownSingleElement(ctx, name)) return name;
  std::vector<int64_t> shape(rank, 1);
  shape[0] = -1;
  const std::string target = ctx.AddInitializer(
      name + "_shape", HostTensor::FromInts(shape, {static_cast<int64_t>(rank)}));
  const std::string out = ctx.NewValueName(name + "_along_axis0");
  ctx.AddNode("Reshape", {name, target}, {out}, 14);
  return out;
}

std::string AddFloatScalar(RewriteContext& ctx, std::string_view hint, float v) {
  return ctx.AddInitializer(hint, HostTensor::FromFloats({v}, {}));
}

std::string AddDequantize(RewriteContext& ctx, const std::string& q, const std::string& scale,
                          const std::string& zero_point) {
  std::string value = AddCast(ctx, q, DataType::kFloat);
  if (!zero_point.empty()) {
    const std::string centered = ctx.NewValueName(q + "_centered");
    ctx.AddNode("Sub", {value, AddCast(ctx, zero_point, DataType::kFloat)}, {centered}, 14);
    value = centered;
  }
  if (!scale.empty()) {
    const std::string scaled = ctx.NewValueName(q + "_dequantized");
    ctx.AddNode("Mul", {value, AddCast(ctx, scale, DataType::kFloat)}, {scaled}, 14);
    value = scaled;
  }
  return value;
}

absl::Status AddRequantize(RewriteContext& ctx, const std::string& y, const std::string& scale,
                           const std::string& zero_point, const std::string& out, DataType to) {
  float lo = 0;
  float hi = 0;
  switch (to) {
    case DataType::kUint8:
      lo = 0;
      hi = 255;
      break;
    case DataType::kInt8:
      lo = -128;
      hi = 127;
      break;
    case DataType::kUint16:
      lo = 0;
      hi = 65535;
      break;
    case DataType::kInt16:
      lo = -32768;
      hi = 32767;
      break;
    case DataType::kInt32:
      lo = static_cast<float>(std::numeric_limits<int32_t>::min());
      hi = 2147483520.0f;  // the largest float below 2^31
      break;
    default:
      return absl::UnimplementedError(
          absl::StrCat("quantizing to ", std::string(DataTypeName(to)), " is not supported"));
  }
  std::string value = y;
  if (!scale.empty()) {
    const std::string divided = ctx.NewValueName(y + "_over_scale");
    ctx.AddNode("Div", {value, AddCast(ctx, scale, DataType::kFloat)}, {divided}, 14);
    value = divided;
  }
  const std::string rounded = ctx.NewValueName(y + "_rounded");
  ctx.AddNode("Round", {value}, {rounded}, 11);
  value = rounded;
  if (!zero_point.empty()) {
    const std::string shifted = ctx.NewValueName(y + "_shifted");
    ctx.AddNode("Add", {value, AddCast(ctx, zero_point, DataType::kFloat)}, {shifted}, 14);
    value = shifted;
  }
  const std::string clipped = ctx.NewValueName(y + "_saturated");
  ctx.AddNode("Clip",
              {value, AddFloatScalar(ctx, y + "_lo", lo), AddFloatScalar(ctx, y + "_hi", hi)},
              {clipped}, 13);
  ctx.AddNode("Cast", {clipped}, {out}, 19).attributes["to"] =
      IntAttribute(static_cast<int64_t>(to));
  return absl::OkStatus();
}

}  // namespace vkserve
