// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Unique (opsets 11-27): the distinct elements (or slices along `axis`) of
// X, sorted or in order of first occurrence, with the optional outputs
// indices (first occurrences), inverse_indices and counts, int64. Their
// number depends on the data, so the node runs at a sync point
// (runtime/sync_split.h), outputs at the bound (every row distinct) and the
// count as output 4 (shaders/ops/unique.comp; fp32 and int64).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kUniqueLocal = 64;  // shaders/ops/unique.comp LOCAL
// An upper bound on the loop iterations of one invocation of unique.comp:
// three passes over its rows, each comparing against every row (a comparison
// walks outer * inner elements), then copying its rows out.
uint64_t WorstCaseLoopIterations(uint64_t outer, uint64_t rows, uint64_t inner) {
  const uint64_t mine = (rows + kUniqueLocal - 1) / kUniqueLocal;
  const uint64_t compare = outer * inner + 1;
  return mine * (3 * (rows + 1) * compare + outer * inner + 3);
}
constexpr int kCountOutput = 4;

struct UniqueGeometry {
  int64_t outer = 1, rows = 1, inner = 1;
  std::vector<int64_t> bound_shape;  // Y with every row distinct
};

absl::StatusOr<UniqueGeometry> UniqueGeometryOf(const Node& node, const TensorDesc& x) {
  UniqueGeometry g;
  if (node.FindAttribute("axis") == nullptr) {
    g.rows = x.num_elements();
    g.bound_shape = {g.rows};
    return g;
  }
  ASSIGN_OR_RETURN(const int64_t a,
                   NormalizeAxis(node.GetInt("axis", 0), static_cast<int64_t>(x.shape.size())));
  for (int64_t d = 0; d < static_cast<int64_t>(x.shape.size()); ++d) {
    if (d < a) g.outer *= x.shape[d];
    if (d > a) g.inner *= x.shape[d];
  }
  g.rows = x.shape[a];
  g.bound_shape = x.shape;
  return g;
}

uint32_t UniqueKindOf(DataType dtype) {
  return dtype == DataType::kFloat ? 0 : (dtype == DataType::kInt32 ? 1 : 2);
}

class UniqueOp : public Op {
 public:
  int sync_count_output() const override { return kCountOutput; }
  int DataDependentAxis(const Node& node, size_t output, size_t rank) const override {
    if (output == 1 || output == 3) return 0;
    if (output != 0 || node.FindAttribute("axis") == nullptr) return output == 0 ? 0 : -1;
    const int64_t a = node.GetInt("axis", 0);
    return static_cast<int>(a < 0 ? a + static_cast<int64_t>(rank) : a);
  }

  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "axis", Attribute::Type::kInt));
    return CheckAttributeType(node, "sorted", Attribute::Type::kInt);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat, DataType::kInt64}, "X"));
    if (!AtSyncPoint(ctx.node, kCountOutput)) {
      return absl::UnimplementedError("Unique of an input known at load (it runs at a sync point)");
    }
    ASSIGN_OR_RETURN(const UniqueGeometry g, UniqueGeometryOf(ctx.node, *x));
    ctx.outputs[0].dtype = x->dtype;
    ctx.outputs[0].shape = g.bound_shape;
    for (size_t o = 1; o < 4; ++o) {
      ctx.outputs[o].dtype = DataType::kInt64;
      ctx.outputs[o].shape = {g.rows};
    }
    ctx.outputs[kCountOutput].dtype = DataType::kInt64;
    ctx.outputs[kCountOutput].shape = {1};
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    ASSIGN_OR_RETURN(const UniqueGeometry g, UniqueGeometryOf(ctx.node(), x));
    if (x.num_elements() >= (int64_t{1} << 30))
      return absl::UnimplementedError("Unique: tensor too large");
    // A longer scan than the device runs would give a short answer:
    // refused past half its limit (a margin for the estimate).
    RETURN_IF_ERROR(CheckInvocationLoops(
        ctx.device().info(),
        WorstCaseLoopIterations(static_cast<uint64_t>(g.outer), static_cast<uint64_t>(g.rows),
                                static_cast<uint64_t>(g.inner)),
        absl::StrCat("Unique of ", g.rows, " rows"), 0.5));
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(g.outer))
        .U32(static_cast<uint32_t>(g.rows))
        .U32(static_cast<uint32_t>(g.inner))
        .U32(ctx.node().GetInt("sorted", 1) != 0 ? 1 : 0);
    const uint64_t row_words = 4 * std::max<uint64_t>(1, static_cast<uint64_t>(g.rows));
    const uint32_t first = ctx.RequestScratch(row_words);
    const uint32_t rank = ctx.RequestScratch(row_words);
    // Omitted outputs are written into a scratch buffer of the largest size.
    const uint32_t spare = ctx.RequestScratch(std::max<uint64_t>(x.byte_size(), 2 * row_words));
    auto out = [&](uint32_t o) {
      const bool given = o < ctx.num_outputs() && ctx.output(o).dtype != DataType::kUndefined &&
                         o < ctx.node().outputs.size() && !ctx.node().outputs[o].empty();
      return given ? BufferRef::Output(o) : BufferRef::Scratch(spare, gpu::Access::kWrite);
    };
    ASSIGN_OR_RETURN(step.pipeline, ctx.GetPipeline("ops/unique", 8, step.push.size(),
                                                    {kUniqueLocal, 1, 1}, {UniqueKindOf(x.dtype)}));
    step.bindings = {BufferRef::Input(0),
                     out(0),
                     out(1),
                     out(2),
                     out(3),
                     BufferRef::Output(kCountOutput),
                     BufferRef::Scratch(first, gpu::Access::kReadWrite),
                     BufferRef::Scratch(rank, gpu::Access::kReadWrite)};
    step.groups = {1, 1, 1};
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Unique", 11, 27, UniqueOp);

}  // namespace vkserve
