// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ConvertOp: the shared implementation of Cast and CastLike — every element
// converted to a target type the subclass names. Folded on the host for every
// numeric type; on the GPU (shaders/ops/cast.comp) between float, float16,
// bfloat16, bool and the integers. Same-type conversions are plain copies.
// `saturate` (opset 19) only concerns float8 types, which are unsupported.
// Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_KERNELS_CAST_OP_H_
#define VKSERVE_RUNTIME_KERNELS_CAST_OP_H_

#include "runtime/op/op.h"

namespace vkserve {

class ConvertOp : public Op {
 public:
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;

 protected:
  // The type `node` converts to; `like` is its input 1 (null when absent).
  // UNIMPLEMENTED for types vkserve does not hold.
  virtual absl::StatusOr<DataType> TargetType(const Node& node, const TensorDesc* like) const = 0;
};

// Cast's `to` attribute (a type name string in opsets 1-5, a TensorProto code
// after). UNIMPLEMENTED for types vkserve does not hold.
absl::StatusOr<DataType> CastTypeAttribute(const Node& node);

// A private Cast attribute (int, default 0): when 1, a float -> float16 Cast
// folded at plan time clamps to fp16's finite range instead of overflowing to
// infinity (runtime/plan/fp16_activations.h sets it on the constants it converts).
inline constexpr char kCastSaturateAttr[] = "_vkserve_saturate";

// A kernel converting the `n` elements of its input 0 from `from` to `to`
// into its output 0 (a plain copy when the types match), for ops that
// convert on their way (Float64ViaFloat32). UNIMPLEMENTED for types the GPU
// cast does not know.
absl::StatusOr<std::unique_ptr<Kernel>> CreateCastKernel(KernelContext& ctx, DataType from,
                                                         DataType to, int64_t n);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_CAST_OP_H_
