// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ViaFloat32<OpClass, types...>: runs an fp32 op on tensors of other types
// by converting at the node's boundary — every input of one of `types` is
// cast to float into scratch, OpClass's own fp32 kernel runs, and every float
// output is cast back to that type. Nodes without such an input are OpClass
// unchanged. Used as the class in a registration line:
//
//   VKSERVE_REGISTER_OP("", "CumSum", 11, 27, Float64ViaFloat32<CumSumOp>);
//
// Float64ViaFloat32 converts double: the shaders need no Float64 capability
// (the cast rebiases the bits by hand), and the arithmetic keeps float's
// precision and range, within the ONNX suite's relative tolerance of 1e-3;
// onnxruntime's GPU providers do not run float64 at all. ExactViaFloat32
// converts the types whose every value float holds exactly (bool, 8- and
// 16-bit integers, float16, bfloat16), for ops whose results are then exact
// too (Clip, MaxPool, ReduceMax: comparisons) or better than computed in the
// narrow type (Attention in float16).
//
// Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_KERNELS_VIA_FLOAT32_H_
#define VKSERVE_RUNTIME_KERNELS_VIA_FLOAT32_H_

#include <functional>
#include <memory>

#include "runtime/op/op.h"

namespace vkserve {

using InferFn = std::function<absl::Status(InferContext&)>;
using CreateKernelFn = std::function<absl::StatusOr<std::unique_ptr<Kernel>>(KernelContext&)>;

// A set of DataTypes as bits (1 << code).
using TypeMask = uint64_t;
constexpr TypeMask TypeBit(DataType t) { return TypeMask{1} << static_cast<int>(t); }

// `infer` on ctx with its inputs of input 0's type presented as float (host
// values converted) when that type is one of `types`, then float outputs
// reported as that type.
absl::Status InferViaFloat32(InferContext& ctx, TypeMask types, const InferFn& infer);

// A kernel of conversions around `create`'s kernel, which sees the node's
// inputs of `types` and its outputs of their type as float. Inputs
// `is_host_input` names are read on the host: converted there, not cast.
absl::StatusOr<std::unique_ptr<Kernel>> CreateKernelViaFloat32(
    KernelContext& ctx, TypeMask types, const std::function<bool(size_t)>& is_host_input,
    const CreateKernelFn& create);

template <typename OpClass, DataType... kTypes>
class ViaFloat32 : public OpClass {
 public:
  absl::Status Infer(InferContext& ctx) const override {
    return InferViaFloat32(ctx, kMask, [this](InferContext& c) { return OpClass::Infer(c); });
  }
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    return CreateKernelViaFloat32(
        ctx, kMask, [&](size_t i) { return OpClass::IsHostInput(ctx.node(), i); },
        [this](KernelContext& c) { return OpClass::CreateKernel(c); });
  }

 private:
  static constexpr TypeMask kMask = (TypeBit(kTypes) | ...);
};

template <typename OpClass>
using Float64ViaFloat32 = ViaFloat32<OpClass, DataType::kDouble>;

// double, float16 and bfloat16: for accumulating ops (CumSum) that float
// computes at least as well as the narrow types.
template <typename OpClass>
using FloatsViaFloat32 =
    ViaFloat32<OpClass, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16>;

template <typename OpClass>
using ExactViaFloat32 =
    ViaFloat32<OpClass, DataType::kBool, DataType::kInt8, DataType::kUint8, DataType::kInt16,
               DataType::kUint16, DataType::kFloat16, DataType::kBFloat16>;

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_VIA_FLOAT32_H_
