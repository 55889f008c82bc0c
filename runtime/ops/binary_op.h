// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BinaryOp: the shared implementation of Add, Sub, Mul, Div, PRelu and Pow —
// numpy broadcasting (PRelu: the slope broadcasts to the input), fp32 on the
// GPU through shaders/ops/binary.comp, int32/int64/uint32/uint64 of any size
// (but Pow) through shaders/ops/binary_int.comp (64-bit arithmetic in 32-bit words), and
// folded on the host for small known inputs of any numeric type (shape
// arithmetic; larger ones — e.g. position/mask indices of a large batch — run
// on the GPU like any other). Opsets before 7 (explicit
// `broadcast`/`axis` attributes) are not registered; onnxruntime does not run
// them either. Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_BINARY_OP_H_
#define VKSERVE_RUNTIME_OPS_BINARY_OP_H_

#include <cstdint>

#include "runtime/op.h"

namespace vkserve {

class BinaryOp : public Op {
 public:
  // Also the shader's OP spec constant.
  enum class Kind : uint32_t { kAdd = 0, kSub = 1, kMul = 2, kDiv = 3, kPRelu = 4, kPow = 5 };
  explicit BinaryOp(Kind kind) : kind_(kind) {}

  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;

 private:
  const Kind kind_;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_BINARY_OP_H_
