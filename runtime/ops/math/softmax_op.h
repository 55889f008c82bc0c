// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SoftmaxOp: the shared implementation of Softmax, LogSoftmax and Hardmax,
// fp32, numerically stable (shaders/ops/softmax.comp). Opsets 1-12 coerce the
// input to 2-D at `axis` (default 1) and normalize each row of the flattened
// trailing dims; from 13 one `axis` (default -1) is normalized. Either way the
// input is a set of rows [outer, axis, inner]. Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_MATH_SOFTMAX_OP_H_
#define VKSERVE_RUNTIME_OPS_MATH_SOFTMAX_OP_H_

#include <cstdint>

#include "runtime/op/op.h"

namespace vkserve {

class SoftmaxOp : public Op {
 public:
  // Also the shader's MODE spec constant.
  enum class Kind : uint32_t {
    kSoftmax = 0,     // exp(x - max) / sum
    kLogSoftmax = 1,  // x - max - log(sum)
    kHardmax = 2,     // 1 at the row's first maximum, else 0
  };
  explicit SoftmaxOp(Kind kind) : kind_(kind) {}

  absl::Status Validate(const Node& node) const override;
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;

 private:
  const Kind kind_;
};

template <SoftmaxOp::Kind kKind>
class SoftmaxKindOp : public SoftmaxOp {
 public:
  SoftmaxKindOp() : SoftmaxOp(kKind) {}
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_MATH_SOFTMAX_OP_H_
