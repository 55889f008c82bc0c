// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// MaxUnpool (opsets 9-27), fp32 (float16, bfloat16 and double through fp32),
// any number of spatial dimensions: Y is zeros but for Y[I[i]] = X[i], I
// holding flat indices into the whole of Y (MaxPool's Indices). Y's shape is
// input 2, output_shape (host-read), when given, else from kernel_shape,
// strides and pads: (in - 1) * stride - pad_begin - pad_end + kernel.
// Runs as a fill and a scatter (shaders/nn/max_unpool.comp).
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kMaxUnpoolLocal = 128;
// Outputs and attribute values above these are refused (the kernel indexes
// in 32 bits; the bounds also keep the shape arithmetic from overflowing).
constexpr int64_t kMaxUnpoolMaxElements = int64_t{1} << 32;
constexpr int64_t kMaxAttribute = int64_t{1} << 30;

// INVALID_ARGUMENT unless `shape` has fewer than 2^32 elements (checked
// without overflow).
absl::Status CheckSize(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d != 0 && n > (kMaxUnpoolMaxElements - 1) / d) {
      return absl::InvalidArgumentError(
          absl::StrCat("MaxUnpool's output ", ShapeString(shape), " has 2^32 elements or more"));
    }
    n *= d;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> MaxUnpoolOutputShape(const Node& node, const TensorDesc& x,
                                                          const TensorDesc& indices,
                                                          const TensorDesc* output_shape) {
  RETURN_IF_ERROR(CheckDataType(x.dtype, {DataType::kFloat}, "MaxUnpool input X"));
  RETURN_IF_ERROR(CheckDataType(indices.dtype, {DataType::kInt64}, "MaxUnpool input I"));
  if (indices.shape != x.shape) {
    return absl::InvalidArgumentError(absl::StrCat("I ", ShapeString(indices.shape),
                                                   " must have X's shape ", ShapeString(x.shape)));
  }
  const size_t rank = x.shape.size();
  if (rank < 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("X ", ShapeString(x.shape), " must have rank 3 or more"));
  }
  const size_t spatial = rank - 2;
  if (output_shape != nullptr && output_shape->value != nullptr) {
    std::vector<int64_t> out = output_shape->value->ToInts();
    if (out.size() != rank || out[0] != x.shape[0] || out[1] != x.shape[1]) {
      return absl::InvalidArgumentError(absl::StrCat("output_shape ", ShapeString(out),
                                                     " does not fit X ", ShapeString(x.shape)));
    }
    for (int64_t d : out) {
      if (d < 0) return absl::InvalidArgumentError("output_shape has a negative dimension");
    }
    RETURN_IF_ERROR(CheckSize(out));
    return out;
  }
  if (output_shape != nullptr) {
    return absl::InvalidArgumentError("MaxUnpool's output_shape must be known on the host");
  }
  const std::vector<int64_t> kernel = node.GetInts("kernel_shape");
  std::vector<int64_t> strides = node.GetInts("strides");
  std::vector<int64_t> pads = node.GetInts("pads");
  if (strides.empty()) strides.assign(spatial, 1);
  if (pads.empty()) pads.assign(2 * spatial, 0);
  if (kernel.size() != spatial || strides.size() != spatial || pads.size() != 2 * spatial) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel_shape, strides and pads do not match X ", ShapeString(x.shape)));
  }
  std::vector<int64_t> out = {x.shape[0], x.shape[1]};
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t size =
        (x.shape[d + 2] - 1) * strides[d] - pads[d] - pads[d + spatial] + kernel[d];
    if (size < 0) return absl::InvalidArgumentError("MaxUnpool's output would be negative");
    out.push_back(size);
  }
  RETURN_IF_ERROR(CheckSize(out));
  return out;
}

// Zeros Y, then scatters X into it.
class MaxUnpoolKernel : public Kernel {
 public:
  MaxUnpoolKernel(std::shared_ptr<const gpu::Pipeline> pipeline, PushConstants params,
                  std::array<uint32_t, 3> groups, bool scatter)
      : pipeline_(std::move(pipeline)),
        params_(std::move(params)),
        groups_(groups),
        scatter_(scatter) {}

  absl::Status Record(const RecordContext& ctx) const override {
    RETURN_IF_ERROR(ctx.command_buffer.Fill(WordRange(ctx.outputs[0]), 0u, ctx.label));
    if (!scatter_) return absl::OkStatus();
    const gpu::Binding bindings[] = {{ctx.inputs[0], gpu::Access::kRead},
                                     {ctx.inputs[1], gpu::Access::kRead},
                                     {ctx.outputs[0], gpu::Access::kReadWrite}};
    return ctx.command_buffer.Dispatch(pipeline_, bindings, params_.bytes(), groups_, ctx.label);
  }

 private:
  std::shared_ptr<const gpu::Pipeline> pipeline_;
  PushConstants params_;
  std::array<uint32_t, 3> groups_;
  bool scatter_;
};

class MaxUnpoolOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    for (const char* name : {"kernel_shape", "strides", "pads"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kInts));
    }
    const std::vector<int64_t> kernel = node.GetInts("kernel_shape");
    if (kernel.empty()) return absl::InvalidArgumentError("attribute 'kernel_shape' is required");
    for (int64_t k : kernel) {
      if (k <= 0 || k > kMaxAttribute) {
        return absl::InvalidArgumentError("kernel_shape must be positive and below 2^30");
      }
    }
    for (int64_t s : node.GetInts("strides")) {
      if (s <= 0 || s > kMaxAttribute) {
        return absl::InvalidArgumentError("strides must be positive and below 2^30");
      }
    }
    for (int64_t p : node.GetInts("pads")) {
      if (p < 0 || p > kMaxAttribute) {
        return absl::InvalidArgumentError("pads must be between 0 and 2^30");
      }
    }
    return absl::OkStatus();
  }

  bool IsHostInput(const Node& /*node*/, size_t i) const override { return i == 2; }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* indices, RequireInput(ctx, 1));
    ASSIGN_OR_RETURN(std::vector<int64_t> shape,
                     MaxUnpoolOutputShape(ctx.node, *x, *indices, ctx.input(2)));
    ctx.outputs.resize(1);
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = std::move(shape);
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    const int64_t n = x.num_elements();
    const int64_t total = ctx.output(0).num_elements();
    if (n >= kMaxUnpoolMaxElements || total >= kMaxUnpoolMaxElements) {
      return absl::UnimplementedError(
          "MaxUnpool tensors of 2^32 elements or more are not supported");
    }
    if (total == 0) return MakeEmptyKernel();
    ASSIGN_OR_RETURN(auto pipeline,
                     ctx.GetPipeline("ops/max_unpool", 3, 8, {kMaxUnpoolLocal, 1, 1}));
    PushConstants pc;
    pc.U32(static_cast<uint32_t>(n)).U32(static_cast<uint32_t>(total));
    return std::make_unique<MaxUnpoolKernel>(std::move(pipeline), std::move(pc),
                                             GroupsFor(n, kMaxUnpoolLocal, ctx.device()), n > 0);
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "MaxUnpool", 9, 27, FloatsViaFloat32<MaxUnpoolOp>);

}  // namespace vkserve
