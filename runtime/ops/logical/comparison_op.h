// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ComparisonOp: the shared implementation of the ops whose output is bool —
// comparisons (Equal, Greater, Less, GreaterOrEqual, LessOrEqual), logic
// (And, Or, Xor, Not) and float predicates (IsNaN, IsInf) — with numpy
// broadcasting for the binary ones. Folded on the host for small known
// inputs (masks built from shapes); otherwise shaders/ops/compare.comp reads
// the operands at their own width (1, 2, 4 or 8 bytes; signed or unsigned
// integers, float32/float16 as numbers, bools as 0/1) and packs four bools
// per 32-bit word. Each op's file only names its kind and registers it.
// Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_LOGICAL_COMPARISON_OP_H_
#define VKSERVE_RUNTIME_OPS_LOGICAL_COMPARISON_OP_H_

#include <cstdint>

#include "runtime/op/op.h"

namespace vkserve {

class ComparisonOp : public Op {
 public:
  // Also the shader's OP spec constant.
  enum class Kind : uint32_t {
    kEqual = 0,
    kGreater = 1,
    kLess = 2,
    kGreaterOrEqual = 3,
    kLessOrEqual = 4,
    kAnd = 5,
    kOr = 6,
    kXor = 7,
    kNot = 8,     // unary
    kIsNaN = 9,   // unary
    kIsInf = 10,  // unary; attributes detect_positive, detect_negative
  };
  explicit ComparisonOp(Kind kind) : kind_(kind) {}

  absl::Status Validate(const Node& node) const override;
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;

 private:
  bool unary() const { return kind_ >= Kind::kNot; }
  const Kind kind_;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_LOGICAL_COMPARISON_OP_H_
