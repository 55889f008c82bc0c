// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// NonMaxSuppression (opsets 10-27): per batch and class, greedy selection of
// boxes by score, dropping those overlapping a selected one by more than
// iou_threshold; int64 rows [batch, class, box]. The row count depends on
// the data, so the node runs at a sync point (runtime/sync_split.h), its
// output at the bound of every box of every class selected and the count
// as output 1 (shaders/ops/non_max_suppression.comp). The three scalar
// inputs are read on the GPU, so they may come from a request or be
// computed: none of them shapes the plan.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/op_registry.h"
#include "runtime/op_util.h"
#include "runtime/ops/dispatch_kernel.h"
#include "runtime/ops/host_fold.h"

namespace vkserve {
namespace {

constexpr uint32_t kNonMaxSuppressionLocal = 64;  // shaders/ops/non_max_suppression.comp LOCAL
// llvmpipe (lavapipe) ends an invocation's loops after 65,535 iterations in
// all, so a shader that loops longer gives a wrong answer there. The kernel is
// refused there when its count below passes half of that (a margin: the count
// is this code's model of the shader's loops, not llvmpipe's).
constexpr uint64_t kNmsLlvmpipeLoopBudget = 65535 / 2;

// The most loop iterations one invocation of the shader may run, each loop
// counted one more than its trips: the pairs it handles, each a pass over
// the boxes and, per pick, two more; then invocation 0 writes every pick.
uint64_t WorstCaseLoopIterations(uint64_t pairs, uint64_t n, uint64_t picks) {
  const uint64_t per_invocation = (pairs + kNonMaxSuppressionLocal - 1) / kNonMaxSuppressionLocal;
  const uint64_t per_pair = (n + 1) + (picks + 1) + picks * 2 * (n + 1);
  return per_invocation * (per_pair + 1) + (pairs + 1) + pairs * (picks + 1);
}

struct NonMaxSuppressionDims {
  int64_t batches = 0, classes = 0, boxes = 0;
};

absl::StatusOr<NonMaxSuppressionDims> NonMaxSuppressionDimsOf(const InferContext& ctx) {
  ASSIGN_OR_RETURN(const TensorDesc* boxes, RequireInput(ctx, 0));
  ASSIGN_OR_RETURN(const TensorDesc* scores, RequireInput(ctx, 1));
  if (boxes->shape.size() != 3 || boxes->shape[2] != 4 || scores->shape.size() != 3 ||
      scores->shape[0] != boxes->shape[0] || scores->shape[2] != boxes->shape[1]) {
    return absl::InvalidArgumentError(absl::StrCat("boxes ", boxes->ToString(), " and scores ",
                                                   scores->ToString(),
                                                   " do not match ([B,N,4] and [B,C,N])"));
  }
  RETURN_IF_ERROR(CheckDataType(boxes->dtype, {DataType::kFloat}, "boxes"));
  RETURN_IF_ERROR(CheckDataType(scores->dtype, {DataType::kFloat}, "scores"));
  const std::pair<size_t, DataType> scalars[] = {
      {2, DataType::kInt64}, {3, DataType::kFloat}, {4, DataType::kFloat}};
  for (const auto& [i, dtype] : scalars) {
    const TensorDesc* s = ctx.input(i);
    if (s == nullptr) continue;
    if (s->num_elements() != 1)
      return absl::InvalidArgumentError(absl::StrCat("input ", i, " must be a scalar"));
    RETURN_IF_ERROR(CheckDataType(s->dtype, {dtype}, absl::StrCat("input ", i)));
  }
  return NonMaxSuppressionDims{boxes->shape[0], scores->shape[1], boxes->shape[1]};
}

class NonMaxSuppressionOp : public Op {
 public:
  int sync_count_output() const override { return 1; }
  int DataDependentAxis(const Node& /*node*/, size_t output, size_t /*rank*/) const override {
    return output == 0 ? 0 : -1;
  }

  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "center_point_box", Attribute::Type::kInt));
    const int64_t c = node.GetInt("center_point_box", 0);
    if (c != 0 && c != 1) return absl::InvalidArgumentError("center_point_box must be 0 or 1");
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const NonMaxSuppressionDims d, NonMaxSuppressionDimsOf(ctx));
    if (!AtSyncPoint(ctx.node, sync_count_output())) {
      return absl::UnimplementedError(
          "NonMaxSuppression of inputs known at load (it runs at a sync point)");
    }
    ctx.outputs[0].dtype = DataType::kInt64;
    ctx.outputs[0].shape = {d.batches * d.classes * d.boxes, 3};
    ctx.outputs[1].dtype = DataType::kInt64;
    ctx.outputs[1].shape = {1};
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& boxes = *ctx.input(0);
    const TensorDesc& scores = *ctx.input(1);
    const int64_t b = boxes.shape[0], n = boxes.shape[1], c = scores.shape[1];
    const uint64_t slots = static_cast<uint64_t>(b * c * n);
    if (slots * 6 >= (uint64_t{1} << 31))
      return absl::UnimplementedError("NonMaxSuppression: too many boxes");
    if (ctx.device().info().driver_name == "llvmpipe") {
      // max_output_boxes_per_class bounds the picks where it is a constant.
      uint64_t picks = static_cast<uint64_t>(n);
      const TensorDesc* max_out = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
      if (max_out == nullptr || max_out->dtype == DataType::kUndefined) {
        picks = 0;
      } else if (max_out->value != nullptr && max_out->value->num_elements() == 1) {
        picks = static_cast<uint64_t>(
            std::clamp<int64_t>(ElementAsInt(*max_out->value, 0), 0, static_cast<int64_t>(n)));
      }
      const uint64_t iterations =
          WorstCaseLoopIterations(static_cast<uint64_t>(b * c), static_cast<uint64_t>(n), picks);
      if (iterations > kNmsLlvmpipeLoopBudget) {
        return absl::UnimplementedError(absl::StrCat(
            "NonMaxSuppression of ", b * c, " batch-class pairs of ", n,
            " boxes: its shader may loop ", iterations,
            " times in one invocation, more than vkserve runs on llvmpipe, which ends a shader's "
            "loops after 65535"));
      }
    }
    auto given = [&](size_t i) {
      const TensorDesc* t = i < ctx.num_inputs() ? ctx.input(i) : nullptr;
      return t != nullptr && t->dtype != DataType::kUndefined ? 1u : 0u;
    };
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(b))
        .U32(static_cast<uint32_t>(c))
        .U32(static_cast<uint32_t>(n))
        .U32(static_cast<uint32_t>(ctx.node().GetInt("center_point_box", 0)))
        .U32(given(2))
        .U32(given(3))
        .U32(given(4));
    const uint32_t removed = ctx.RequestScratch(4 * std::max<uint64_t>(1, slots));
    const uint32_t picks = ctx.RequestScratch(4 * std::max<uint64_t>(1, slots));
    const uint32_t picked =
        ctx.RequestScratch(4 * std::max<uint64_t>(1, static_cast<uint64_t>(b * c)));
    ASSIGN_OR_RETURN(step.pipeline, ctx.GetPipeline("ops/non_max_suppression", 10, step.push.size(),
                                                    {kNonMaxSuppressionLocal, 1, 1}));
    // Omitted scalars bind the boxes in their place, unread.
    auto scalar = [&](size_t i) {
      return BufferRef::Input(given(i) ? static_cast<uint32_t>(i) : 0);
    };
    step.bindings = {BufferRef::Input(0),
                     BufferRef::Input(1),
                     scalar(2),
                     scalar(3),
                     scalar(4),
                     BufferRef::Scratch(removed, gpu::Access::kReadWrite),
                     BufferRef::Scratch(picks, gpu::Access::kReadWrite),
                     BufferRef::Scratch(picked, gpu::Access::kReadWrite),
                     BufferRef::Output(0),
                     BufferRef::Output(1)};
    step.groups = {1, 1, 1};
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "NonMaxSuppression", 10, 27, NonMaxSuppressionOp);

}  // namespace vkserve
