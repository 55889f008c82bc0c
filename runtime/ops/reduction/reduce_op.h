// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ReduceOp: the shared implementation of the Reduce* ops (Mean, Sum, Max,
// Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare), fp32 on the GPU through
// shaders/ops/reduce.comp: axes as an attribute, or as a host-known input
// from the opset the subclass names (13 for ReduceSum, 18 for the others,
// with noop_with_empty_axes); keepdims. Adjacent kept or reduced dims are
// merged, so any axes set of a rank-6 input (and most of higher ranks) fits
// the shader. Folded on the host for small known inputs of any numeric type.
// Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_REDUCTION_REDUCE_OP_H_
#define VKSERVE_RUNTIME_OPS_REDUCTION_REDUCE_OP_H_

#include <cstdint>

#include "runtime/op/op.h"

namespace vkserve {

class ReduceOp : public Op {
 public:
  // Also the shader's OP spec constant.
  enum class Kind : uint32_t {
    kMean = 0,
    kSum = 1,
    kMax = 2,
    kMin = 3,
    kProd = 4,
    kL1 = 5,
    kL2 = 6,
    kLogSum = 7,
    kLogSumExp = 8,
    kSumSquare = 9,
  };
  // `axes_input_opset`: the first opset where axes is input 1.
  ReduceOp(Kind kind, int64_t axes_input_opset)
      : kind_(kind), axes_input_opset_(axes_input_opset) {}

  bool IsHostInput(const Node& node, size_t input_index) const override;
  absl::Status Validate(const Node& node) const override;
  absl::Status Infer(InferContext& ctx) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override;

 private:
  const Kind kind_;
  const int64_t axes_input_opset_;
};

// A Reduce* op whose file is one registration line.
template <ReduceOp::Kind kKind, int64_t kAxesInputOpset>
class ReduceKindOp : public ReduceOp {
 public:
  ReduceKindOp() : ReduceOp(kKind, kAxesInputOpset) {}
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_REDUCTION_REDUCE_OP_H_
