// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// CumulativeOp: the shared implementation of CumSum and CumProd along the
// axis of input 1 (a host-known scalar), with `exclusive` and `reverse`:
// fp32 and 32- and 64-bit integers on the GPU (shaders/ops/cumulative.comp;
// 64-bit as word pairs, no 64-bit shader integers needed), any numeric type
// folded on the host when small and known. The registrations add double,
// float16 and bfloat16 through float32 (via_float32.h). Stateless;
// thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_MATH_CUMULATIVE_OP_H_
#define VKSERVE_RUNTIME_OPS_MATH_CUMULATIVE_OP_H_

#include "runtime/op/op.h"

namespace vkserve {

class CumulativeOp : public Op {
 public:
  explicit CumulativeOp(bool product) : product_(product) {}

  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index == 1;
  }
  absl::Status Validate(const Node& node) const override;
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;

 private:
  const bool product_;  // CumProd, else CumSum
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_MATH_CUMULATIVE_OP_H_
