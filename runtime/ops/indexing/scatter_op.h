// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ScatterOp: the shared implementation of ScatterND, ScatterElements and the
// deprecated Scatter (ScatterElements at opsets 9-10): the output starts as a
// copy of data (a strided copy), then shaders/ops/scatter_nd.comp or
// scatter_elements.comp applies the updates in index order, so duplicate
// indices resolve as ONNX's sequential definition; `reduction` none for
// elements of 4 or 8 bytes, add/mul/max/min for fp32. Out-of-range indices
// are clamped (ONNX leaves them undefined). Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_INDEXING_SCATTER_OP_H_
#define VKSERVE_RUNTIME_OPS_INDEXING_SCATTER_OP_H_

#include "runtime/op/op.h"

namespace vkserve {

class ScatterOp : public Op {
 public:
  explicit ScatterOp(bool nd) : nd_(nd) {}

  absl::Status Validate(const Node& node) const override;
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;

 private:
  const bool nd_;  // ScatterND, else ScatterElements
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_INDEXING_SCATTER_OP_H_
