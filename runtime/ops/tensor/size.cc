// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Size (opsets 1-27): the input's element count as an int64 scalar, known
// from its shape at plan time, so the node always folds (never runs).
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

class SizeOp : public Op {
 public:
  bool IsShapeOnlyInput(const Node& /*node*/, size_t /*input_index*/) const override {
    return true;
  }
  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* in, RequireInput(ctx, 0));
    TensorDesc& out = ctx.outputs[0];
    out.dtype = DataType::kInt64;
    out.shape = {};
    out.value = Share(HostTensor::FromInts({in->num_elements()}, out.shape));
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Size", 1, 27, SizeOp);

}  // namespace vkserve
