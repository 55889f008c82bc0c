// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Range (opsets 11-27): start, start + delta, ... up to (excluding) limit,
// from three host-known scalars (float16 and bfloat16, opset 27's, counted
// in float and rounded once). The values are computed on the host as
// onnxruntime does (accumulating delta in the element type): folded when
// small, else uploaded once per plan and copied into the output.
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

template <typename T>
HostTensor Fill(DataType dtype, T start, T limit, T delta) {
  int64_t n;
  if constexpr (std::is_floating_point_v<T>) {
    n = static_cast<int64_t>(std::ceil((static_cast<double>(limit) - start) / delta));
  } else {
    const int64_t span = static_cast<int64_t>(limit) - start;
    n = delta > 0 ? (span + delta - 1) / delta : (span + delta + 1) / delta;
  }
  n = std::max<int64_t>(n, 0);
  HostTensor t = ZeroTensor(dtype, {n});
  T v = start;
  for (int64_t i = 0; i < n; ++i, v += delta)
    std::memcpy(t.data.data() + i * sizeof(T), &v, sizeof(T));
  return t;
}

absl::StatusOr<HostTensor> ComputeRange(const HostTensor& start, const HostTensor& limit,
                                        const HostTensor& delta) {
  const DataType dtype = start.dtype;
  if (limit.dtype != dtype || delta.dtype != dtype) {
    return absl::InvalidArgumentError("start, limit and delta must have one type");
  }
  if (start.num_elements() != 1 || limit.num_elements() != 1 || delta.num_elements() != 1) {
    return absl::InvalidArgumentError("start, limit and delta must be scalars");
  }
  if (ElementAsDouble(delta, 0) == 0) return absl::InvalidArgumentError("delta cannot be 0");
  switch (dtype) {
    case DataType::kFloat:
      return Fill<float>(dtype, static_cast<float>(ElementAsDouble(start, 0)),
                         static_cast<float>(ElementAsDouble(limit, 0)),
                         static_cast<float>(ElementAsDouble(delta, 0)));
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return ConvertTensor(
          Fill<float>(DataType::kFloat, static_cast<float>(ElementAsDouble(start, 0)),
                      static_cast<float>(ElementAsDouble(limit, 0)),
                      static_cast<float>(ElementAsDouble(delta, 0))),
          dtype);
    case DataType::kDouble:
      return Fill<double>(dtype, ElementAsDouble(start, 0), ElementAsDouble(limit, 0),
                          ElementAsDouble(delta, 0));
    case DataType::kInt16:
      return Fill<int16_t>(dtype, static_cast<int16_t>(ElementAsInt(start, 0)),
                           static_cast<int16_t>(ElementAsInt(limit, 0)),
                           static_cast<int16_t>(ElementAsInt(delta, 0)));
    case DataType::kInt32:
      return Fill<int32_t>(dtype, static_cast<int32_t>(ElementAsInt(start, 0)),
                           static_cast<int32_t>(ElementAsInt(limit, 0)),
                           static_cast<int32_t>(ElementAsInt(delta, 0)));
    case DataType::kInt64:
      return Fill<int64_t>(dtype, ElementAsInt(start, 0), ElementAsInt(limit, 0),
                           ElementAsInt(delta, 0));
    default:
      return absl::UnimplementedError(
          absl::StrCat("Range of type ", std::string(DataTypeName(dtype)), " is not supported"));
  }
}

template <typename InputFn>
absl::StatusOr<HostTensor> RangeOf(InputFn input) {
  const HostTensor* args[3];
  for (int i = 0; i < 3; ++i) {
    const TensorDesc* d = input(i);
    if (d == nullptr || d->value == nullptr) {
      return absl::UnimplementedError(
          "start, limit and delta must be known at load time (constants, or computable from "
          "shapes); vkserve never reads tensor data back in the middle of a run");
    }
    args[i] = d->value.get();
  }
  return ComputeRange(*args[0], *args[1], *args[2]);
}

class RangeOp : public Op {
 public:
  bool IsHostInput(const Node& /*node*/, size_t /*input_index*/) const override { return true; }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(HostTensor t, RangeOf([&ctx](int i) { return ctx.input(i); }));
    TensorDesc& out = ctx.outputs[0];
    out.dtype = t.dtype;
    out.shape = t.shape;
    if (out.num_elements() <= ctx.max_fold_elements) out.value = Share(std::move(t));
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(HostTensor t, RangeOf([&ctx](int i) { return ctx.input(i); }));
    StridedCopy copy = ContiguousCopy(t.num_elements());
    copy.source = StridedCopy::Source::kConstant;
    const DataType dtype = t.dtype;
    copy.src_index = static_cast<int>(ctx.AddConstant(std::move(t.data).Release()));
    return CreateStridedCopyKernel(ctx, dtype, {std::move(copy)});
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Range", 11, 27, RangeOp);

}  // namespace vkserve
