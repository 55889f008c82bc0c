// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ReverseSequence (opsets 10-27): the first sequence_lens[b] (int64, read on
// the GPU) entries along time_axis reversed for each batch entry b along
// batch_axis, elements of 4 or 8 bytes (shaders/ops/reverse_sequence.comp).
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kReverseSequenceLocal = 256;

class ReverseSequenceOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "batch_axis", Attribute::Type::kInt));
    RETURN_IF_ERROR(CheckAttributeType(node, "time_axis", Attribute::Type::kInt));
    const int64_t b = node.GetInt("batch_axis", 1), t = node.GetInt("time_axis", 0);
    if ((b != 0 && b != 1) || (t != 0 && t != 1) || b == t) {
      return absl::InvalidArgumentError("batch_axis and time_axis must be 0 and 1, distinct");
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* lens, RequireInput(ctx, 1));
    RETURN_IF_ERROR(CheckDataType(lens->dtype, {DataType::kInt64}, "sequence_lens"));
    if (x->shape.size() < 2) return absl::InvalidArgumentError("input must have rank 2 or more");
    const int64_t b = ctx.node.GetInt("batch_axis", 1);
    if (lens->shape != std::vector<int64_t>{x->shape[b]}) {
      return absl::InvalidArgumentError("sequence_lens must be [batch]");
    }
    const size_t size = DataTypeSize(x->dtype);
    if (size != 4 && size != 8) {
      return absl::UnimplementedError(
          absl::StrCat("ReverseSequence of ", std::string(DataTypeName(x->dtype))));
    }
    ctx.outputs[0].dtype = x->dtype;
    ctx.outputs[0].shape = x->shape;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    const uint64_t n = static_cast<uint64_t>(x.num_elements());
    if (n == 0) return MakeEmptyKernel();
    if (n >= (uint64_t{1} << 31)) return absl::UnimplementedError("tensor too large");
    const std::vector<int64_t> strides = Strides(x.shape);
    const int64_t b = ctx.node().GetInt("batch_axis", 1), t = ctx.node().GetInt("time_axis", 0);
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(n))
        .U32(static_cast<uint32_t>(x.shape[t]))
        .U32(static_cast<uint32_t>(strides[t]))
        .U32(static_cast<uint32_t>(x.shape[b]))
        .U32(static_cast<uint32_t>(strides[b]));
    ASSIGN_OR_RETURN(
        step.pipeline,
        ctx.GetPipeline("ops/reverse_sequence", 3, step.push.size(), {kReverseSequenceLocal, 1, 1},
                        {static_cast<uint32_t>(DataTypeSize(x.dtype) / 4)}));
    step.bindings = {BufferRef::Input(0), BufferRef::Input(1), BufferRef::Output(0)};
    step.groups = GroupsFor(n, kReverseSequenceLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "ReverseSequence", 10, 27, ReverseSequenceOp);

}  // namespace vkserve
