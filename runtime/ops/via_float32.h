// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Float64ViaFloat32<OpClass>: runs an fp32 op on float64 tensors by
// converting at the node's boundary — every double input is cast to float
// into scratch, OpClass's own fp32 kernel runs, and every float output is
// cast back to double. The shaders need no Float64 capability (the cast
// rebiases the bits by hand), and the arithmetic keeps float's precision and
// range, within the ONNX suite's relative tolerance of 1e-3; onnxruntime's
// GPU providers do not run float64 at all. Nodes without a double input are
// OpClass unchanged. Used as the class in a registration line:
//
//   VKSERVE_REGISTER_OP("", "CumSum", 11, 27, Float64ViaFloat32<CumSumOp>);
//
// Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_FLOAT64_VIA_FLOAT32_H_
#define VKSERVE_RUNTIME_OPS_FLOAT64_VIA_FLOAT32_H_

#include <functional>
#include <memory>

#include "runtime/op.h"

namespace vkserve {

using InferFn = std::function<absl::Status(InferContext&)>;
using CreateKernelFn = std::function<absl::StatusOr<std::unique_ptr<Kernel>>(KernelContext&)>;

// `infer` on ctx with its double inputs presented as float (host values
// converted), then float outputs reported as double.
absl::Status InferViaFloat32(InferContext& ctx, const InferFn& infer);

// A kernel of conversions around `create`'s kernel, which sees the node's
// double inputs and outputs as float.
absl::StatusOr<std::unique_ptr<Kernel>> CreateKernelViaFloat32(KernelContext& ctx,
                                                               const CreateKernelFn& create);

template <typename OpClass>
class Float64ViaFloat32 : public OpClass {
 public:
  absl::Status Infer(InferContext& ctx) const override {
    return InferViaFloat32(ctx, [this](InferContext& c) { return OpClass::Infer(c); });
  }
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    return CreateKernelViaFloat32(ctx, [this](KernelContext& c) { return OpClass::CreateKernel(c); });
  }
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_FLOAT64_VIA_FLOAT32_H_
