// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BatchNormalization (opsets 1-27) in inference mode, fp32:
// y = (x - mean) / sqrt(var + epsilon) * scale + B per channel (dim 1), or,
// with spatial=0 (opsets < 9), per element of the dims after the batch. The
// four statistics fold into one scale and shift per channel: on the host when
// they are constants (the usual case: initializers), else by a small GPU pass
// first (shaders/nn/batch_normalization_params.comp). In training mode
// (training_mode=1, opset 14 on) the statistics are the batch's own, computed
// on the GPU first (shaders/nn/batch_normalization_stats.comp), and the
// optional outputs 1 and 2 are the running mean and variance,
// input * momentum + batch * (1 - momentum). Older training modes (is_test=0,
// the saved statistics outputs before opset 14) are UNIMPLEMENTED.
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kBatchNormalizationLocal = 256;

// How the statistics line up with X: element i uses channel
// (i / inner) % channels.
struct ChannelLayout {
  int64_t channels = 1;
  int64_t inner = 1;
};

class BatchNormalizationOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    for (const char* name : {"epsilon", "momentum"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kFloat));
    }
    for (const char* name : {"spatial", "training_mode", "is_test"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kInt));
    }
    if (node.opset < 7 && node.GetInt("is_test", 0) == 0) {
      return absl::UnimplementedError("BatchNormalization in training mode (is_test=0)");
    }
    const bool training = Training(node);
    if (node.GetInt("training_mode", 0) != 0 && node.opset < 14) {
      return absl::UnimplementedError("BatchNormalization's training_mode before opset 14");
    }
    for (size_t o = 1; o < node.outputs.size(); ++o) {
      if (!node.outputs[o].empty() && (!training || o > 2)) {
        return absl::UnimplementedError(
            absl::StrCat("BatchNormalization's output ", o,
                         " (running statistics exist in training mode only, from opset 14)"));
      }
    }
    if (node.inputs.size() != 5) {
      return absl::InvalidArgumentError(
          absl::StrCat("expects 5 inputs (X, scale, B, mean, var), has ", node.inputs.size()));
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat}, "X"));
    ASSIGN_OR_RETURN(const ChannelLayout layout, Layout(ctx.node, x->shape));
    static constexpr const char* kNames[] = {"X", "scale", "B", "mean", "var"};
    for (size_t i = 1; i < 5; ++i) {
      ASSIGN_OR_RETURN(const TensorDesc* t, RequireInput(ctx, i));
      if (t->num_elements() != layout.channels) {
        return absl::InvalidArgumentError(absl::StrCat(kNames[i], " ", ShapeString(t->shape),
                                                       " does not have one value per channel of X ",
                                                       ShapeString(x->shape)));
      }
    }
    ctx.outputs[0].dtype = x->dtype;
    ctx.outputs[0].shape = x->shape;
    for (size_t o = 1; o < ctx.outputs.size(); ++o) {
      ctx.outputs[o].dtype = DataType::kFloat;
      ctx.outputs[o].shape = {layout.channels};
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    const uint64_t n = static_cast<uint64_t>(x.num_elements());
    if (n >= (uint64_t{1} << 32)) {
      return absl::UnimplementedError(absl::StrCat("tensors of 2^32 or more elements (", n, ")"));
    }
    if (n == 0) return MakeEmptyKernel();
    ASSIGN_OR_RETURN(const ChannelLayout layout, Layout(ctx.node(), x.shape));
    const float epsilon = ctx.node().GetFloat("epsilon", 1e-5f);
    const uint32_t channels = static_cast<uint32_t>(layout.channels);
    std::vector<DispatchStep> steps;

    BufferRef params;
    bool known = !Training(ctx.node());
    for (size_t i = 1; i < 5; ++i) known = known && ctx.input(i)->value != nullptr;
    // Where the fold reads the mean and variance: the inputs, or in training
    // mode the batch's, computed first.
    BufferRef mean = BufferRef::Input(3), var = BufferRef::Input(4);
    if (Training(ctx.node())) {
      ASSIGN_OR_RETURN(DispatchStep stats, StatsStep(ctx, x.shape[0], layout, &mean, &var));
      steps.push_back(std::move(stats));
    }
    if (known) {
      std::vector<float> folded(2 * static_cast<size_t>(channels));
      const HostTensor& scale = *ctx.input(1)->value;
      const HostTensor& bias = *ctx.input(2)->value;
      const HostTensor& mean = *ctx.input(3)->value;
      const HostTensor& var = *ctx.input(4)->value;
      for (uint32_t c = 0; c < channels; ++c) {
        const double s = ElementAsDouble(scale, c) / std::sqrt(ElementAsDouble(var, c) + epsilon);
        folded[c] = static_cast<float>(s);
        folded[channels + c] =
            static_cast<float>(ElementAsDouble(bias, c) - ElementAsDouble(mean, c) * s);
      }
      std::vector<uint8_t> bytes(folded.size() * sizeof(float));
      std::memcpy(bytes.data(), folded.data(), bytes.size());
      params = BufferRef::Constant(ctx.AddConstant(std::move(bytes)));
    } else {
      static constexpr const char* kNames[] = {"X", "scale", "B", "mean", "var"};
      for (size_t i = 1; i < 5; ++i) {
        RETURN_IF_ERROR(CheckDataType(ctx.input(i)->dtype, {DataType::kFloat}, kNames[i]));
      }
      const uint32_t scratch = ctx.RequestScratch(2 * uint64_t{channels} * sizeof(float));
      DispatchStep fold;
      fold.push.U32(channels).F32(epsilon);
      ASSIGN_OR_RETURN(fold.pipeline, ctx.GetPipeline("ops/batch_normalization_params", 5,
                                                      fold.push.size(), {64, 1, 1}));
      fold.bindings = {BufferRef::Input(1), BufferRef::Input(2), mean, var,
                       BufferRef::Scratch(scratch, gpu::Access::kWrite)};
      fold.groups = GroupsFor(channels, 64, ctx.device());
      steps.push_back(std::move(fold));
      params = BufferRef::Scratch(scratch, gpu::Access::kRead);
    }

    const bool vec4 = layout.inner % 4 == 0;
    const uint64_t invocations = vec4 ? n / 4 : n;
    DispatchStep apply;
    apply.push.U32(static_cast<uint32_t>(invocations))
        .U32(static_cast<uint32_t>(vec4 ? layout.inner / 4 : layout.inner))
        .U32(channels);
    ASSIGN_OR_RETURN(apply.pipeline,
                     ctx.GetPipeline("ops/batch_normalization", 3, apply.push.size(),
                                     {kBatchNormalizationLocal, 1, 1}, {vec4 ? 1u : 0u}));
    apply.bindings = {BufferRef::Input(0), params, BufferRef::Output(0)};
    apply.groups = GroupsFor(invocations, kBatchNormalizationLocal, ctx.device());
    steps.push_back(std::move(apply));
    return std::make_unique<DispatchKernel>(std::move(steps));
  }

 private:
  static bool Training(const Node& node) {
    return node.opset >= 14 && node.GetInt("training_mode", 0) != 0;
  }

  // The batch statistics of training mode into two scratch buffers (`*mean`,
  // `*var` are set to them), and the running statistics into outputs 1 and
  // 2 where the node has them.
  static absl::StatusOr<DispatchStep> StatsStep(KernelContext& ctx, int64_t batch,
                                                const ChannelLayout& layout, BufferRef* mean,
                                                BufferRef* var) {
    if (layout.channels > ctx.device().info().max_workgroup_count[0]) {
      return absl::UnimplementedError(
          absl::StrCat("training mode over ", layout.channels, " channels"));
    }
    const uint64_t bytes = static_cast<uint64_t>(layout.channels) * sizeof(float);
    const uint32_t mean_at = ctx.RequestScratch(bytes), var_at = ctx.RequestScratch(bytes);
    auto output = [&](size_t o) {
      return ctx.num_outputs() > o && ctx.output(o).dtype != DataType::kUndefined;
    };
    // The running statistics are written together, both or neither (an
    // omitted one into scratch).
    const bool running = output(1) || output(2);
    auto running_ref = [&](size_t o) {
      return output(o) ? BufferRef::Output(static_cast<uint32_t>(o))
                       : BufferRef::Scratch(ctx.RequestScratch(bytes), gpu::Access::kWrite);
    };
    DispatchStep stats;
    stats.push.U32(static_cast<uint32_t>(batch))
        .U32(static_cast<uint32_t>(layout.channels))
        .U32(static_cast<uint32_t>(layout.inner))
        .F32(ctx.node().GetFloat("momentum", 0.9f));
    ASSIGN_OR_RETURN(stats.pipeline,
                     ctx.GetPipeline("ops/batch_normalization_stats", 7, stats.push.size(),
                                     {64, 1, 1}, {running ? 1u : 0u}));
    stats.bindings = {BufferRef::Input(0),
                      BufferRef::Input(3),
                      BufferRef::Input(4),
                      BufferRef::Scratch(mean_at, gpu::Access::kWrite),
                      BufferRef::Scratch(var_at, gpu::Access::kWrite),
                      running_ref(1),
                      running_ref(2)};
    stats.groups = {static_cast<uint32_t>(layout.channels), 1, 1};
    *mean = BufferRef::Scratch(mean_at, gpu::Access::kRead);
    *var = BufferRef::Scratch(var_at, gpu::Access::kRead);
    return stats;
  }

  static absl::StatusOr<ChannelLayout> Layout(const Node& node, const std::vector<int64_t>& shape) {
    if (shape.size() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("X ", ShapeString(shape), " must have a batch and a channel dim"));
    }
    ChannelLayout l;
    const bool spatial = node.opset >= 9 || node.GetInt("spatial", 1) != 0;
    l.channels = spatial ? shape[1] : 1;
    for (size_t d = spatial ? 2 : 1; d < shape.size(); ++d) {
      (spatial ? l.inner : l.channels) *= shape[d];
    }
    return l;
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "BatchNormalization", 1, 27, BatchNormalizationOp);

}  // namespace vkserve
