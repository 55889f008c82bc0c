// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ArgReduceOp: the shared implementation of ArgMax and ArgMin — the int64
// index of each row's extreme along `axis` (keepdims, select_last_index from
// opset 12), fp32 on the GPU through shaders/ops/arg_reduce.comp, folded on
// the host for small known inputs of any numeric type. Stateless;
// thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_REDUCTION_ARG_REDUCE_OP_H_
#define VKSERVE_RUNTIME_OPS_REDUCTION_ARG_REDUCE_OP_H_

#include "runtime/op/op.h"

namespace vkserve {

class ArgReduceOp : public Op {
 public:
  explicit ArgReduceOp(bool max) : max_(max) {}

  absl::Status Validate(const Node& node) const override;
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;

 private:
  const bool max_;  // ArgMax, else ArgMin
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_REDUCTION_ARG_REDUCE_OP_H_
