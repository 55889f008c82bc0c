// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// STFT (opset 17), fp32 inside (float16, bfloat16 and double convert at the
// node's boundary): the signal [batch, length, 1 or 2] cut into
// frames of frame_length samples every frame_step (both host-known; the
// length defaults to the window's), each multiplied by the window (input 2,
// on the GPU, optional) and transformed; output [batch, frames, bins, 2]
// with bins = frame_length / 2 + 1 when onesided (the default), else
// frame_length. Runs as runtime/ops/signal/dft_kernel.h, one bin per invocation.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"
#include "runtime/ops/signal/dft_kernel.h"

namespace vkserve {
namespace {

absl::StatusOr<DftProblem> StftProblemOf(const Node& node, const TensorDesc& signal,
                                         const TensorDesc* step_desc, const TensorDesc* window,
                                         const TensorDesc* length_desc) {
  if (signal.dtype != DataType::kFloat) {
    return absl::UnimplementedError(
        absl::StrCat("STFT of ", std::string(DataTypeName(signal.dtype)), " (float types only)"));
  }
  if (signal.shape.size() != 3 || (signal.shape[2] != 1 && signal.shape[2] != 2)) {
    return absl::InvalidArgumentError(absl::StrCat("STFT signal ", ShapeString(signal.shape),
                                                   " must be [batch, length, 1 or 2]"));
  }
  if (step_desc == nullptr) return absl::InvalidArgumentError("STFT needs frame_step");
  ASSIGN_OR_RETURN(const int64_t step, PlannedScalarInput(*step_desc, "STFT", "frame_step"));
  if (window != nullptr) {
    if (window->dtype != DataType::kFloat || window->shape.size() != 1) {
      return absl::InvalidArgumentError("STFT window must be a 1-D float tensor");
    }
  }
  int64_t length = window != nullptr ? window->shape[0] : -1;
  if (length_desc != nullptr) {
    ASSIGN_OR_RETURN(length, PlannedScalarInput(*length_desc, "STFT", "frame_length"));
    if (window != nullptr && window->shape[0] != length) {
      return absl::InvalidArgumentError(
          absl::StrCat("STFT window of ", window->shape[0], " samples for frames of ", length));
    }
  }
  if (length < 0) return absl::InvalidArgumentError("STFT needs a window or frame_length");
  const int64_t samples = signal.shape[1];
  if (step < 1 || length < 1 || length > samples) {
    return absl::InvalidArgumentError(absl::StrCat("STFT frames of ", length, " every ", step,
                                                   " do not fit a signal of ", samples));
  }
  if (static_cast<uint64_t>(length) > kMaxDftLength) {
    return absl::UnimplementedError(
        absl::StrCat("STFT frames of ", length, " (at most ", kMaxDftLength, ")"));
  }
  DftProblem p;
  p.outer = static_cast<uint64_t>(signal.shape[0]);
  p.in_len = static_cast<uint64_t>(samples);
  p.in_complex = signal.shape[2] == 2;
  p.n = static_cast<uint64_t>(length);
  p.out_len = node.GetInt("onesided", 1) != 0 ? p.n / 2 + 1 : p.n;
  p.frames = static_cast<uint64_t>(1 + (samples - length) / step);
  p.frame_step = static_cast<uint64_t>(step);
  return p;
}

class StftOp : public Op {
 public:
  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index == 1 || input_index == 3;
  }

  absl::Status Validate(const Node& node) const override {
    return CheckAttributeType(node, "onesided", Attribute::Type::kInt);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* signal, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const DftProblem p,
                     StftProblemOf(ctx.node, *signal, ctx.input(1), ctx.input(2), ctx.input(3)));
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = {signal->shape[0], static_cast<int64_t>(p.frames),
                            static_cast<int64_t>(p.out_len), 2};
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const DftProblem p, StftProblemOf(ctx.node(), *ctx.input(0), ctx.input(1),
                                                       ctx.input(2), ctx.input(3)));
    return CreateDftKernel(ctx, p,
                           ctx.input(2) != nullptr ? std::optional<uint32_t>(2) : std::nullopt);
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "STFT", 17, 27, FloatsViaFloat32<StftOp>);

}  // namespace vkserve
