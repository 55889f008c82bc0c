// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// TensorScatter (opset 24): the KV-cache update. present_cache is past_cache
// with each batch entry's update rows written along `axis` (default -2) from
// its write index (input 2, int64 [batch], on the GPU; zero when omitted),
// the index taken modulo the cache length when mode = "circular". The update
// matches the cache in every dimension but the axis, where it is no longer.
// One dispatch over the output (shaders/ops/tensor_scatter.comp) for
// elements of 1, 2, 4 or 8 bytes; write indices are read on the GPU, never
// on the host. Indices the spec leaves undefined (a linear write running
// past the cache, negative indices) write only the rows that land inside
// it, so no access leaves the tensors.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kTensorScatterLocal = 256;

absl::StatusOr<bool> IsCircular(const Node& node) {
  const std::string mode = node.GetString("mode", "linear");
  if (mode == "linear") return false;
  if (mode == "circular") return true;
  return absl::InvalidArgumentError(absl::StrCat(
      "TensorScatter mode must be \"linear\" or \"circular\", not \"", mode.substr(0, 32), "\""));
}

// The cache viewed as [batch, outer, len, inner] and the update's length.
struct ScatterShape {
  uint64_t batch = 1, outer = 1, len = 1, seq = 1, inner = 1;
};

absl::StatusOr<ScatterShape> TensorScatterShapeOf(const Node& node, const TensorDesc& past,
                                                  const TensorDesc& update,
                                                  const TensorDesc* indices) {
  const int64_t rank = static_cast<int64_t>(past.shape.size());
  if (rank < 2) return absl::InvalidArgumentError("TensorScatter: past_cache needs rank 2 or more");
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(node.GetInt("axis", -2), rank));
  if (axis == 0)
    return absl::InvalidArgumentError("TensorScatter: axis must not be the batch axis");
  if (update.dtype != past.dtype) {
    return absl::InvalidArgumentError("TensorScatter: update and past_cache differ in type");
  }
  if (update.shape.size() != past.shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("TensorScatter: update ",
                                                   ShapeString(update.shape), " and past_cache ",
                                                   ShapeString(past.shape), " differ in rank"));
  }
  ScatterShape s;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t want = past.shape[d], got = update.shape[d];
    if (d == axis ? got > want : got != want) {
      return absl::InvalidArgumentError(
          absl::StrCat("TensorScatter: update ", ShapeString(update.shape),
                       " does not fit past_cache ", ShapeString(past.shape), " along axis ", axis));
    }
    const uint64_t extent = static_cast<uint64_t>(want);
    if (d == 0)
      s.batch = extent;
    else if (d < axis)
      s.outer *= extent;
    else if (d == axis)
      s.len = extent, s.seq = static_cast<uint64_t>(got);
    else
      s.inner *= extent;
  }
  if (indices != nullptr) {
    if (indices->dtype != DataType::kInt64) {
      return absl::InvalidArgumentError("TensorScatter: write_indices must be int64");
    }
    if (indices->shape != std::vector<int64_t>{past.shape[0]}) {
      return absl::InvalidArgumentError(absl::StrCat("TensorScatter: write_indices ",
                                                     ShapeString(indices->shape),
                                                     " must be [batch] = [", past.shape[0], "]"));
    }
  }
  return s;
}

class TensorScatterOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "axis", Attribute::Type::kInt));
    RETURN_IF_ERROR(CheckAttributeType(node, "mode", Attribute::Type::kString));
    return IsCircular(node).status();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* past, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* update, RequireInput(ctx, 1));
    RETURN_IF_ERROR(TensorScatterShapeOf(ctx.node, *past, *update, ctx.input(2)).status());
    const size_t size = DataTypeSize(past->dtype);
    if (size != 1 && size != 2 && size != 4 && size != 8) {
      return absl::UnimplementedError(absl::StrCat("TensorScatter of ",
                                                   std::string(DataTypeName(past->dtype)),
                                                   " (1-, 2-, 4- and 8-byte types)"));
    }
    ctx.outputs[0].dtype = past->dtype;
    ctx.outputs[0].shape = past->shape;
    return absl::OkStatus();
  }

  // It only moves elements: a cache kept in fp16 stays fp16.
  const OpTraits& traits() const override {
    static const OpTraits kTraits{.float16 = Float16Use::kMoves};
    return kTraits;
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& past = *ctx.input(0);
    const TensorDesc* indices = ctx.input(2);
    ASSIGN_OR_RETURN(const ScatterShape s,
                     TensorScatterShapeOf(ctx.node(), past, *ctx.input(1), indices));
    ASSIGN_OR_RETURN(const bool circular, IsCircular(ctx.node()));
    const uint64_t n = static_cast<uint64_t>(past.num_elements());
    if (n == 0) return MakeEmptyKernel();
    if (n >= (uint64_t{1} << 31)) return absl::UnimplementedError("TensorScatter: cache too large");
    const uint32_t unit = static_cast<uint32_t>(DataTypeSize(past.dtype));
    // Below 4 bytes, one invocation per output word.
    const uint64_t invocations = unit >= 4 ? n : (n * unit + 3) / 4;
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(n))
        .U32(static_cast<uint32_t>(invocations))
        .U32(static_cast<uint32_t>(s.outer))
        .U32(static_cast<uint32_t>(s.len))
        .U32(static_cast<uint32_t>(s.seq))
        .U32(static_cast<uint32_t>(s.inner));
    ASSIGN_OR_RETURN(
        step.pipeline,
        ctx.GetPipeline("ops/tensor_scatter", 4, step.push.size(), {kTensorScatterLocal, 1, 1},
                        {unit, circular ? 1u : 0u, indices != nullptr ? 1u : 0u}));
    // Without write indices the shader never reads binding 2: the cache
    // stands in for it.
    step.bindings = {BufferRef::Input(0), BufferRef::Input(1),
                     BufferRef::Input(indices != nullptr ? 2 : 0), BufferRef::Output(0)};
    step.groups = GroupsFor(invocations, kTensorScatterLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "TensorScatter", 24, 27, TensorScatterOp);

}  // namespace vkserve
