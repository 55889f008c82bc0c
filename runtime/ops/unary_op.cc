// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/unary_op.h"

#include "absl/strings/str_cat.h"
#include "runtime/op_util.h"
#include "runtime/ops/host_fold.h"

namespace vkserve {
namespace {

constexpr uint32_t kLocal = 256;

class UnaryKernel : public Kernel {
 public:
  UnaryKernel(std::shared_ptr<const gpu::Pipeline> pipeline, PushConstants push,
              std::array<uint32_t, 3> groups)
      : pipeline_(std::move(pipeline)), push_(std::move(push)), groups_(groups) {}

  absl::Status Record(const RecordContext& ctx) const override {
    const gpu::Binding bindings[] = {{ctx.inputs[0], gpu::Access::kRead},
                                     {ctx.outputs[0], gpu::Access::kWrite}};
    return ctx.command_buffer.Dispatch(pipeline_, bindings, push_.bytes(), groups_, ctx.label);
  }

 private:
  std::shared_ptr<const gpu::Pipeline> pipeline_;
  PushConstants push_;
  std::array<uint32_t, 3> groups_;
};

}  // namespace

absl::Status ActivationOp::Validate(const Node& node) const {
  for (const char* name : {"alpha", "beta", "min", "max"}) {
    RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kFloat));
  }
  return absl::OkStatus();
}

bool ActivationOp::IsHostInput(const Node& node, size_t input_index) const {
  return node.op_type == "Clip" && input_index > 0;
}

absl::StatusOr<ActivationParams> ActivationOp::Params(const Node& node, const TensorDesc* min,
                                                      const TensorDesc* max) const {
  for (const TensorDesc* bound : {min, max}) {
    if (bound != nullptr && bound->value == nullptr) {
      return absl::UnimplementedError(
          "Clip's min and max must be known at load time (constants); vkserve never reads "
          "tensor data back in the middle of a run");
    }
  }
  return ActivationOfNode(node, min != nullptr ? min->value.get() : nullptr,
                          max != nullptr ? max->value.get() : nullptr);
}

absl::Status ActivationOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
  RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat}, "input 0"));
  ASSIGN_OR_RETURN(ActivationParams params, Params(ctx.node, ctx.input(1), ctx.input(2)));
  ctx.outputs[0].dtype = x->dtype;
  ctx.outputs[0].shape = x->shape;
  if (x->value != nullptr && x->num_elements() <= kMaxFoldElements) {
    HostTensor y = *x->value;
    for (int64_t i = 0; i < y.num_elements(); ++i) {
      SetElementFromDouble(&y, i, ApplyActivation(params, static_cast<float>(ElementAsDouble(*x->value, i))));
    }
    ctx.outputs[0].value = Share(std::move(y));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> ActivationOp::CreateKernel(KernelContext& ctx) const {
  ASSIGN_OR_RETURN(ActivationParams params, Params(ctx.node(), ctx.input(1), ctx.input(2)));
  const uint64_t n = static_cast<uint64_t>(ctx.output(0).num_elements());
  if (n >= (uint64_t{1} << 32)) return absl::UnimplementedError("tensor too large");
  ASSIGN_OR_RETURN(auto pipeline,
                   ctx.GetPipeline("ops/unary", 2, 12, {kLocal, 1, 1},
                                   {static_cast<uint32_t>(params.kind)}));
  PushConstants push;
  push.U32(static_cast<uint32_t>(n)).F32(params.alpha).F32(params.beta);
  return std::make_unique<UnaryKernel>(std::move(pipeline), std::move(push),
                                       GroupsFor((n + 3) / 4, kLocal, ctx.device()));
}

}  // namespace vkserve
