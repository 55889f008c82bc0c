// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// RotaryEmbedding (opsets 23-27), fp32: rotates the first
// rotary_embedding_dim (default all) dims of each head of a 4-D [B, H, S, D]
// or 3-D [B, S, H * D] (num_heads) input by cos/sin caches
// [max_position, rot / 2] indexed by int64 position_ids [B, S], or [B, S,
// rot / 2] without them; halves or (interleaved) adjacent pairs
// (shaders/attention/rotary_embedding.comp).
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kRotaryEmbeddingLocal = 256;

struct RotaryEmbeddingPlan {
  int64_t b = 0, heads = 0, seq = 0, dim = 0, rot = 0, sb = 0, sh = 0, ss = 0, max_pos = 0;
};

absl::StatusOr<RotaryEmbeddingPlan> RotaryEmbeddingPlanOf(const Node& node, const TensorDesc& x,
                                                          const TensorDesc& cache,
                                                          const TensorDesc* positions) {
  RotaryEmbeddingPlan p;
  if (x.shape.size() == 4) {
    p = {x.shape[0], x.shape[1], x.shape[2], x.shape[3], 0, 0, 0, 0, 0};
    p.sb = p.heads * p.seq * p.dim;
    p.sh = p.seq * p.dim;
    p.ss = p.dim;
  } else if (x.shape.size() == 3) {
    p.heads = node.GetInt("num_heads", 0);
    if (p.heads <= 0 || x.shape[2] % p.heads != 0) {
      return absl::InvalidArgumentError("3-D input needs num_heads dividing its hidden size");
    }
    p.b = x.shape[0];
    p.seq = x.shape[1];
    p.dim = x.shape[2] / p.heads;
    p.sb = p.seq * x.shape[2];
    p.sh = p.dim;
    p.ss = x.shape[2];
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("input ", ShapeString(x.shape), " must be 3-D or 4-D"));
  }
  p.rot = node.GetInt("rotary_embedding_dim", 0);
  if (p.rot == 0) p.rot = p.dim;
  if (p.rot < 2 || p.rot % 2 != 0 || p.rot > p.dim) {
    return absl::InvalidArgumentError(
        absl::StrCat("rotary_embedding_dim ", p.rot, " for heads of ", p.dim));
  }
  const std::vector<int64_t> want =
      positions != nullptr
          ? std::vector<int64_t>{cache.shape.empty() ? 0 : cache.shape[0], p.rot / 2}
          : std::vector<int64_t>{p.b, p.seq, p.rot / 2};
  if (cache.shape != want) {
    return absl::InvalidArgumentError(
        absl::StrCat("cos/sin cache ", ShapeString(cache.shape), ", expected ", ShapeString(want)));
  }
  if (positions != nullptr && positions->shape != std::vector<int64_t>{p.b, p.seq}) {
    return absl::InvalidArgumentError("position_ids must be [batch, sequence]");
  }
  p.max_pos = cache.shape[0];
  return p;
}

class RotaryEmbeddingOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    for (const char* name : {"interleaved", "num_heads", "rotary_embedding_dim"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kInt));
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* cos, RequireInput(ctx, 1));
    ASSIGN_OR_RETURN(const TensorDesc* sin, RequireInput(ctx, 2));
    for (const TensorDesc* t : {x, cos, sin})
      RETURN_IF_ERROR(CheckDataType(t->dtype, {DataType::kFloat}, "input"));
    if (sin->shape != cos->shape)
      return absl::InvalidArgumentError("cos and sin caches differ in shape");
    const TensorDesc* positions = ctx.input(3);
    if (positions != nullptr)
      RETURN_IF_ERROR(CheckDataType(positions->dtype, {DataType::kInt64}, "position_ids"));
    RETURN_IF_ERROR(RotaryEmbeddingPlanOf(ctx.node, *x, *cos, positions).status());
    ctx.outputs[0].dtype = x->dtype;
    ctx.outputs[0].shape = x->shape;
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    const TensorDesc* positions = ctx.input(3);
    ASSIGN_OR_RETURN(const RotaryEmbeddingPlan p,
                     RotaryEmbeddingPlanOf(ctx.node(), x, *ctx.input(1), positions));
    const uint64_t n = static_cast<uint64_t>(x.num_elements());
    if (n >= (uint64_t{1} << 31)) return absl::UnimplementedError("tensor too large");
    if (n == 0) return MakeEmptyKernel();
    DispatchStep step;
    for (int64_t v :
         {static_cast<int64_t>(n), p.heads, p.seq, p.dim, p.rot, p.sb, p.sh, p.ss, p.max_pos}) {
      step.push.U32(static_cast<uint32_t>(v));
    }
    ASSIGN_OR_RETURN(
        step.pipeline,
        ctx.GetPipeline(
            "ops/rotary_embedding", 5, step.push.size(), {kRotaryEmbeddingLocal, 1, 1},
            {ctx.node().GetInt("interleaved", 0) != 0 ? 1u : 0u, positions != nullptr ? 1u : 0u}));
    step.bindings = {BufferRef::Input(0), BufferRef::Input(1), BufferRef::Input(2),
                     BufferRef::Input(positions != nullptr ? 3 : 0), BufferRef::Output(0)};
    step.groups = GroupsFor(n, kRotaryEmbeddingLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "RotaryEmbedding", 23, 27, RotaryEmbeddingOp);

}  // namespace vkserve
