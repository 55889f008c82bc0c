// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// DFT (opsets 17 and 20), fp32 inside (float16, bfloat16 and double convert
// at the node's boundary): a forward or inverse (1/n) transform
// along one signal axis of [batch, signal dims..., 1 (real) or 2
// (complex)], zero-padded or truncated to dft_length (input 1, host-known).
// The axis is an attribute (default 1) before opset 20, then input 2
// (host-known, default -2); the last dim is never the axis. onesided
// returns bins 0..n/2 of a forward transform; with inverse it takes bins
// 0..n/2 of a Hermitian spectrum and returns the real signal (numpy's
// irfft; n defaults to 2 (len - 1) there). Runs as runtime/ops/signal/dft_kernel.h.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"
#include "runtime/ops/signal/dft_kernel.h"

namespace vkserve {
namespace {

// The axis input of opset 20 on.
bool AxisIsInput(const Node& node) { return node.opset >= 20; }

// A host-known scalar input, or `fallback` when omitted.
absl::StatusOr<int64_t> ScalarInput(const TensorDesc* desc, const char* what, int64_t fallback) {
  if (desc == nullptr) return fallback;
  return PlannedScalarInput(*desc, "DFT", what);
}

// The transform `node` asks of `x`; `*axis_out` is its axis in x's dims.
absl::StatusOr<DftProblem> DftProblemOf(const Node& node, const TensorDesc& x,
                                        const TensorDesc* length, const TensorDesc* axis_input,
                                        int64_t* axis_out = nullptr) {
  if (x.dtype != DataType::kFloat) {
    return absl::UnimplementedError(
        absl::StrCat("DFT of ", std::string(DataTypeName(x.dtype)), " (float types only)"));
  }
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank < 2 || (x.shape.back() != 1 && x.shape.back() != 2)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DFT input ", ShapeString(x.shape), " must end in a dim of 1 (real) or 2 (complex)"));
  }
  int64_t axis = 0;
  if (AxisIsInput(node)) {
    ASSIGN_OR_RETURN(axis, ScalarInput(axis_input, "axis", -2));
  } else {
    axis = node.GetInt("axis", 1);
  }
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank - 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("DFT axis is out of range for input ", ShapeString(x.shape),
                     " (the last dim holds real and imaginary parts)"));
  }
  DftProblem p;
  p.inverse = node.GetInt("inverse", 0) != 0;
  const bool onesided = node.GetInt("onesided", 0) != 0;
  p.half_input = onesided && p.inverse;
  p.in_complex = x.shape.back() == 2;
  p.out_complex = !p.half_input;
  p.in_len = static_cast<uint64_t>(x.shape[axis]);
  for (int64_t d = 0; d < axis; ++d) p.outer *= static_cast<uint64_t>(x.shape[d]);
  for (int64_t d = axis + 1; d < rank - 1; ++d) p.inner *= static_cast<uint64_t>(x.shape[d]);
  const int64_t fallback = p.half_input ? 2 * (x.shape[axis] - 1) : x.shape[axis];
  ASSIGN_OR_RETURN(const int64_t n, ScalarInput(length, "dft_length", fallback));
  if (n < 1) return absl::InvalidArgumentError(absl::StrCat("DFT length ", n, " must be positive"));
  if (static_cast<uint64_t>(n) > kMaxDftLength) {
    return absl::UnimplementedError(
        absl::StrCat("DFT length ", n, " (at most ", kMaxDftLength, ")"));
  }
  p.n = static_cast<uint64_t>(n);
  p.out_len = onesided && !p.inverse ? p.n / 2 + 1 : p.n;
  if (axis_out != nullptr) *axis_out = axis;
  return p;
}

class DftOp : public Op {
 public:
  bool IsHostInput(const Node& node, size_t input_index) const override {
    return input_index == 1 || (input_index == 2 && AxisIsInput(node));
  }

  absl::Status Validate(const Node& node) const override {
    for (const char* name : {"inverse", "onesided", "axis"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kInt));
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    int64_t axis = 0;
    ASSIGN_OR_RETURN(const DftProblem p,
                     DftProblemOf(ctx.node, *x, ctx.input(1), ctx.input(2), &axis));
    std::vector<int64_t> shape = x->shape;
    shape[axis] = static_cast<int64_t>(p.out_len);
    shape.back() = p.out_complex ? 2 : 1;
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = std::move(shape);
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const DftProblem p,
                     DftProblemOf(ctx.node(), *ctx.input(0), ctx.input(1), ctx.input(2)));
    return CreateDftKernel(ctx, p, std::nullopt);
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "DFT", 17, 27, FloatsViaFloat32<DftOp>);

}  // namespace vkserve
