// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Shape (opsets 1-27): the input's shape as a 1-D int64 tensor, optionally
// sliced by the `start`/`end` attributes (opset 15+). Shapes are known at
// plan time, so Shape is always folded and never runs.
#include <algorithm>

#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

class ShapeOp : public Op {
 public:
  bool IsShapeOnlyInput(const Node& /*node*/, size_t /*input_index*/) const override {
    return true;
  }
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "start", Attribute::Type::kInt));
    return CheckAttributeType(node, "end", Attribute::Type::kInt);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* in, RequireInput(ctx, 0));
    const int64_t rank = static_cast<int64_t>(in->shape.size());
    int64_t start = 0;
    int64_t end = rank;
    if (ctx.node.opset >= 15) {
      start = ctx.node.GetInt("start", 0);
      end = ctx.node.GetInt("end", rank);
      // Negative values count from the back; both clamp to [0, rank].
      if (start < 0) start += rank;
      if (end < 0) end += rank;
      start = std::clamp<int64_t>(start, 0, rank);
      end = std::clamp<int64_t>(end, 0, rank);
    }
    std::vector<int64_t> dims;
    for (int64_t i = start; i < end; ++i) dims.push_back(in->shape[i]);
    TensorDesc& out = ctx.outputs[0];
    out.dtype = DataType::kInt64;
    out.shape = {static_cast<int64_t>(dims.size())};
    out.value = Share(HostTensor::FromInts(dims, out.shape));
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Shape", 1, 27, ShapeOp);

}  // namespace vkserve
