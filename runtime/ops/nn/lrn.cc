// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LRN (opsets 1-27): local response normalization across channels of an
// [N, C, ...] fp32 tensor (shaders/nn/lrn.comp).
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kLrnLocal = 256;

class LrnOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "size", Attribute::Type::kInt));
    if (node.GetInt("size", 0) <= 0) return absl::InvalidArgumentError("size must be positive");
    for (const char* name : {"alpha", "beta", "bias"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kFloat));
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat}, "input 0"));
    if (x->shape.size() < 2) return absl::InvalidArgumentError("LRN needs [N, C, ...]");
    ctx.outputs[0].dtype = x->dtype;
    ctx.outputs[0].shape = x->shape;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    const uint64_t n = static_cast<uint64_t>(x.num_elements());
    if (n >= (uint64_t{1} << 32)) {
      return absl::UnimplementedError(absl::StrCat("tensors of 2^32 or more elements (", n, ")"));
    }
    if (n == 0) return MakeEmptyKernel();
    int64_t spatial = 1;
    for (size_t d = 2; d < x.shape.size(); ++d) spatial *= x.shape[d];
    const Node& node = ctx.node();
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(n))
        .U32(static_cast<uint32_t>(x.shape[1]))
        .U32(static_cast<uint32_t>(spatial))
        .U32(static_cast<uint32_t>(node.GetInt("size", 1)))
        .F32(node.GetFloat("alpha", 1e-4f))
        .F32(node.GetFloat("beta", 0.75f))
        .F32(node.GetFloat("bias", 1.0f));
    ASSIGN_OR_RETURN(step.pipeline,
                     ctx.GetPipeline("ops/lrn", 2, step.push.size(), {kLrnLocal, 1, 1}));
    step.bindings = {BufferRef::Input(0), BufferRef::Output(0)};
    step.groups = GroupsFor(n, kLrnLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "LRN", 1, 27, LrnOp);

}  // namespace vkserve
