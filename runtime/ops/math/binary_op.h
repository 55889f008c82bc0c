// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BinaryOp: the shared implementation of Add, Sub, Mul, Div, PRelu, Pow, Mod,
// BitShift, BitwiseAnd/Or/Xor and the variadic Min, Max, Sum and Mean —
// numpy broadcasting (PRelu: the slope broadcasts to the input), fp32 (and fp16 through the ops/binary_f16 build-time variant,
// but PRelu and Pow) on the GPU through shaders/ops/binary.comp, the integers of every width
// through shaders/ops/binary_int.comp (64-bit arithmetic in 32-bit words), and folded on the host
// for small known inputs of any numeric type (shape arithmetic; larger ones — e.g. position/mask
// indices of a large batch — run on the GPU like any other). Opsets before 7 (explicit
// `broadcast`/`axis` attributes) are not registered; onnxruntime does not run
// them either. Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_MATH_BINARY_OP_H_
#define VKSERVE_RUNTIME_OPS_MATH_BINARY_OP_H_

#include <cstdint>
#include <vector>

#include "runtime/op/op.h"

namespace vkserve {

class BinaryOp : public Op {
 public:
  // Also the shader's OP spec constant.
  enum class Kind : uint32_t {
    kAdd = 0,
    kSub = 1,
    kMul = 2,
    kDiv = 3,
    kPRelu = 4,
    kPow = 5,
    kMin = 6,
    kMax = 7,
    kMod = 8,   // integers, the result takes the divisor's sign (Python's %)
    kFmod = 9,  // the result takes the dividend's sign (C's fmod)
    // Integers only.
    kBitwiseAnd = 10,
    kBitwiseOr = 11,
    kBitwiseXor = 12,
    kShiftLeft = 13,
    kShiftRight = 14,  // unsigned; shifts of width or more give 0
  };
  // How many inputs: two, or one or more folded left to right (Sum, Max,
  // ...); kMean divides the folded sum by the input count; kComplement
  // takes one input and an all-ones second operand (BitwiseNot as Xor).
  enum class Arity { kBinary, kVariadic, kMean, kComplement };
  explicit BinaryOp(Kind kind, Arity arity = Arity::kBinary)
      : traits_{.float16 = Float16UseOf(kind)}, kind_(kind), arity_(arity) {}

  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;
  const OpTraits& traits() const override { return traits_; }

  // For integer-only kinds.
  static bool IsBitwise(Kind kind) { return static_cast<uint32_t>(kind) >= 10; }

 protected:
  // The operation `node` computes (Mod picks kMod or kFmod by attribute).
  virtual Kind KindOf(const Node& /*node*/) const { return kind_; }

  // Made by the constructor; a subclass's constructor may add to it.
  OpTraits traits_;

 private:
  // The fp16 shader variant serves every float kind but PRelu and Pow. (Ops
  // choosing their kind by attribute, Mod and BitShift, choose between kinds
  // alike here.)
  static Float16Use Float16UseOf(Kind kind) {
    return kind == Kind::kPRelu || kind == Kind::kPow || IsBitwise(kind) ? Float16Use::kNone
                                                                         : Float16Use::kComputes;
  }

  // OK when the GPU kernel takes `dtype` for `kind`.
  absl::Status CheckGpuType(Kind kind, DataType dtype) const;
  // Folds the constant inputs `in` (broadcast to `shape`) on the host:
  // integers exactly in int64, floats in double.
  HostTensor Fold(Kind kind, const std::vector<const TensorDesc*>& in,
                  const std::vector<int64_t>& shape) const;

  const Kind kind_;
  const Arity arity_;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_MATH_BINARY_OP_H_
