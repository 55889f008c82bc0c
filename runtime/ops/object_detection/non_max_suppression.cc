// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// NonMaxSuppression (opsets 10-27): per batch and class, greedy selection of
// boxes by score, dropping those overlapping a selected one by more than
// iou_threshold; int64 rows [batch, class, box]. The row count depends on
// the data, so the node runs at a sync point (runtime/sync_split.h), its
// output at the bound of every box of every class selected and the count
// as output 1. shaders/nn/non_max_suppression.comp ranks the boxes, builds
// overlap bit masks and keeps boxes greedily in passes whose loops are all
// bounded (llvmpipe ends longer ones), refusing inputs past those bounds
// (98,304 boxes, 1 GiB of masks). The three scalar
// inputs are read on the GPU, so they may come from a request or be
// computed: none of them shapes the plan.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

// shaders/nn/non_max_suppression.comp's passes (its PASS constant) and the
// bounds its loops rely on.
enum NmsPass : uint32_t { kInit, kRank, kOrder, kMask, kKeep, kOffsets, kWrite };
constexpr uint32_t kNmsLocal = 64;       // workgroup size of the per-element passes
constexpr uint32_t kNmsKeepLocal = 256;  // KEEP: one workgroup per (batch, class)
constexpr uint32_t kNmsScan = 256;       // OFFSETS: its single workgroup (SCAN)
constexpr uint64_t kNmsTile = 2048;      // RANK: boxes per invocation (TILE)
constexpr uint64_t kNmsMaxWords = 3072;  // KEEP: mask words per row (MAX_WORDS)
constexpr uint64_t kNmsMaxPairs = kNmsScan * 8192;
// KEEP loops about rows * (2 + words / kNmsKeepLocal) times per invocation and
// dispatch; rows is chosen to keep that under this, far below the 65,535
// iterations after which llvmpipe (lavapipe) ends an invocation's loops.
constexpr uint64_t kNmsKeepBudget = 8192;
// The overlap masks take pairs * n * ceil(n / 32) words.
constexpr uint64_t kNmsMaxMaskBytes = uint64_t{1} << 30;

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
    const uint64_t pairs = static_cast<uint64_t>(b * c);
    const uint64_t slots = pairs * static_cast<uint64_t>(n);
    const uint64_t words = (static_cast<uint64_t>(n) + 31) / 32;
    const uint64_t tiles =
        std::max<uint64_t>(1, (static_cast<uint64_t>(n) + kNmsTile - 1) / kNmsTile);
    const uint64_t mask_bytes = slots * words * 4;
    const uint64_t range = ctx.device().info().max_storage_buffer_range;
    const uint64_t buffer_limit = range != 0 ? std::min(kNmsMaxMaskBytes, range) : kNmsMaxMaskBytes;
    if (slots * 6 >= (uint64_t{1} << 31) || slots * tiles >= (uint64_t{1} << 31) ||
        slots * 16 > buffer_limit || words > kNmsMaxWords || pairs > kNmsMaxPairs ||
        mask_bytes > buffer_limit) {
      return absl::UnimplementedError(
          absl::StrCat("NonMaxSuppression of ", b, " batches x ", c, " classes x ", n,
                       " boxes: past what vkserve runs (at most ", kNmsMaxWords * 32, " boxes, ",
                       kNmsMaxPairs, " batch-class pairs and ", buffer_limit,
                       " bytes of overlap masks, pairs * boxes^2 / 8)"));
    }
    auto given = [&](size_t i) {
      const TensorDesc* t = i < ctx.num_inputs() ? ctx.input(i) : nullptr;
      return t != nullptr && t->dtype != DataType::kUndefined ? 1u : 0u;
    };
    const uint64_t keep_rows =
        std::max<uint64_t>(1, kNmsKeepBudget / (2 + (words + kNmsKeepLocal - 1) / kNmsKeepLocal));
    auto push = [&](uint64_t row0) {
      PushConstants push;
      push.U32(static_cast<uint32_t>(b))
          .U32(static_cast<uint32_t>(c))
          .U32(static_cast<uint32_t>(n))
          .U32(static_cast<uint32_t>(ctx.node().GetInt("center_point_box", 0)))
          .U32(given(2))
          .U32(given(3))
          .U32(given(4))
          .U32(static_cast<uint32_t>(words))
          .U32(static_cast<uint32_t>(tiles))
          .U32(static_cast<uint32_t>(row0))
          .U32(static_cast<uint32_t>(keep_rows));
      return push;
    };
    auto scratch = [&](uint64_t bytes) {
      return BufferRef::Scratch(ctx.RequestScratch(std::max<uint64_t>(4, bytes)),
                                gpu::Access::kReadWrite);
    };
    // Omitted scalars bind the boxes in their place, unread.
    auto scalar = [&](size_t i) {
      return BufferRef::Input(given(i) ? static_cast<uint32_t>(i) : 0);
    };
    const std::vector<BufferRef> bindings = {
        BufferRef::Input(0),        BufferRef::Input(1), scalar(2), scalar(3), scalar(4),
        scratch(slots * 4),          // rank
        scratch(slots * 16),         // sorted corners
        scratch(slots * 4),          // order
        scratch(pairs * 16),         // state
        scratch(mask_bytes),         // mask
        scratch(pairs * words * 4),  // removed
        scratch(slots * 4),          // picks
        BufferRef::Output(0),       BufferRef::Output(1)};
    std::vector<DispatchStep> steps;
    auto add = [&](NmsPass pass, uint32_t local, std::array<uint32_t, 3> groups,
                   uint64_t row0) -> absl::Status {
      DispatchStep step;
      step.push = push(row0);
      ASSIGN_OR_RETURN(step.pipeline, ctx.GetPipeline("ops/non_max_suppression", bindings.size(),
                                                      step.push.size(), {local, 1, 1}, {pass}));
      step.bindings = bindings;
      step.groups = groups;
      steps.push_back(std::move(step));
      return absl::OkStatus();
    };
    auto per = [&](uint64_t invocations) {
      return GroupsFor(std::max<uint64_t>(1, invocations), kNmsLocal, ctx.device());
    };
    RETURN_IF_ERROR(add(kInit, kNmsLocal, per(std::max(slots, pairs * 4)), 0));
    RETURN_IF_ERROR(add(kRank, kNmsLocal, per(slots * tiles), 0));
    RETURN_IF_ERROR(add(kOrder, kNmsLocal, per(slots), 0));
    RETURN_IF_ERROR(add(kMask, kNmsLocal, per(slots * words), 0));
    const std::array<uint32_t, 3> keep_groups =
        GroupsFor(std::max<uint64_t>(1, pairs) * kNmsKeepLocal, kNmsKeepLocal, ctx.device());
    for (uint64_t row0 = 0; row0 < static_cast<uint64_t>(n); row0 += keep_rows) {
      RETURN_IF_ERROR(add(kKeep, kNmsKeepLocal, keep_groups, row0));
    }
    RETURN_IF_ERROR(add(kOffsets, kNmsScan, {1, 1, 1}, 0));
    RETURN_IF_ERROR(add(kWrite, kNmsLocal, per(slots), 0));
    return std::make_unique<DispatchKernel>(std::move(steps));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "NonMaxSuppression", 10, 27, NonMaxSuppressionOp);

}  // namespace vkserve
