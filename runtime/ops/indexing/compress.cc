// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Compress (opsets 9-27): the slices of `input` along `axis` (without one:
// of the flattened input) whose `condition` entry is true; condition entries
// past the axis are ignored, missing ones count as false. The output length
// n depends on the data: folded on the host when both inputs are known at
// plan time, else the node runs at a sync point (runtime/sync_split.h), its
// output at the bound (n = the selectable length) and n as output 1:
// shaders/ops/compress_select.comp lists the selected rows, then
// compress_gather.comp copies them, any 1- to 8-byte type.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kSelectLocal = 128;  // shaders/ops/compress_select.comp LOCAL
constexpr uint32_t kCompressLocal = 256;

struct CompressGeometry {
  int64_t outer = 1, axis = 1, inner = 1, len = 0;  // len: selectable rows
  std::vector<int64_t> bound_shape;                 // the output at n = len
  size_t axis_index = 0;                            // in the output
};

absl::StatusOr<CompressGeometry> CompressGeometryOf(const Node& node, const TensorDesc& x,
                                                    const TensorDesc& cond) {
  if (cond.dtype != DataType::kBool) return absl::InvalidArgumentError("condition must be bool");
  if (cond.shape.size() != 1) return absl::InvalidArgumentError("condition must be 1-D");
  CompressGeometry g;
  if (node.FindAttribute("axis") == nullptr) {
    g.axis = x.num_elements();
    g.bound_shape = {0};
  } else {
    ASSIGN_OR_RETURN(const int64_t a,
                     NormalizeAxis(node.GetInt("axis", 0), static_cast<int64_t>(x.shape.size())));
    for (int64_t d = 0; d < static_cast<int64_t>(x.shape.size()); ++d) {
      if (d < a) g.outer *= x.shape[d];
      if (d > a) g.inner *= x.shape[d];
    }
    g.axis = x.shape[a];
    g.bound_shape = x.shape;
    g.axis_index = static_cast<size_t>(a);
  }
  g.len = std::min(g.axis, cond.shape[0]);
  g.bound_shape[g.axis_index] = g.len;
  return g;
}

class CompressOp : public Op {
 public:
  int sync_count_output() const override { return 1; }
  int DataDependentAxis(const Node& node, size_t output, size_t rank) const override {
    if (output != 0) return -1;
    if (node.FindAttribute("axis") == nullptr) return 0;
    const int64_t a = node.GetInt("axis", 0);
    return static_cast<int>(a < 0 ? a + static_cast<int64_t>(rank) : a);
  }

  absl::Status Validate(const Node& node) const override {
    return CheckAttributeType(node, "axis", Attribute::Type::kInt);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* cond, RequireInput(ctx, 1));
    ASSIGN_OR_RETURN(const CompressGeometry g, CompressGeometryOf(ctx.node, *x, *cond));
    const bool at_sync_point = AtSyncPoint(ctx.node, sync_count_output());
    ctx.outputs[0].dtype = x->dtype;
    if (!at_sync_point && x->value != nullptr && cond->value != nullptr &&
        IsFoldableType(x->dtype) && x->num_elements() <= ctx.max_fold_elements) {
      std::vector<int64_t> rows;
      for (int64_t k = 0; k < g.len; ++k) {
        if (ElementAsInt(*cond->value, k) != 0) rows.push_back(k);
      }
      const int64_t n = static_cast<int64_t>(rows.size());
      std::vector<int64_t> shape = g.bound_shape;
      shape[g.axis_index] = n;
      HostTensor y = ZeroTensor(x->dtype, shape);
      for (int64_t o = 0; o < g.outer; ++o) {
        for (int64_t k = 0; k < n; ++k) {
          for (int64_t i = 0; i < g.inner; ++i) {
            CopyElement(*x->value, (o * g.axis + rows[k]) * g.inner + i, &y,
                        (o * n + k) * g.inner + i);
          }
        }
      }
      ctx.outputs[0].shape = std::move(shape);
      ctx.outputs[0].value = Share(std::move(y));
      return absl::OkStatus();
    }
    if (!at_sync_point) {
      return absl::UnimplementedError(absl::StrCat(
          "Compress of a constant too large to fold at load (", x->num_elements(), " elements)"));
    }
    const size_t size = DataTypeSize(x->dtype);
    if (size != 1 && size != 2 && size != 4 && size != 8) {
      return absl::UnimplementedError(
          absl::StrCat("Compress of ", std::string(DataTypeName(x->dtype))));
    }
    ctx.outputs[0].shape = g.bound_shape;
    ctx.outputs[1].dtype = DataType::kInt64;
    ctx.outputs[1].shape = {1};
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    ASSIGN_OR_RETURN(const CompressGeometry g, CompressGeometryOf(ctx.node(), x, *ctx.input(1)));
    const uint32_t elem = static_cast<uint32_t>(DataTypeSize(x.dtype));
    const uint64_t bound = static_cast<uint64_t>(g.outer * g.len * g.inner);
    if (static_cast<uint64_t>(x.num_elements()) * std::max<uint32_t>(1, elem / 4) >=
        (uint64_t{1} << 31)) {
      return absl::UnimplementedError("Compress: tensor too large");
    }
    const uint32_t sel = ctx.RequestScratch(4 * static_cast<uint64_t>(std::max<int64_t>(1, g.len)));
    std::vector<DispatchStep> steps(2);
    DispatchStep& select = steps[0];
    select.push.U32(static_cast<uint32_t>(g.len));
    ASSIGN_OR_RETURN(select.pipeline, ctx.GetPipeline("ops/compress_select", 3, select.push.size(),
                                                      {kSelectLocal, 1, 1}));
    select.bindings = {BufferRef::Input(1), BufferRef::Scratch(sel, gpu::Access::kWrite),
                       BufferRef::Output(1)};
    DispatchStep& gather = steps[1];
    gather.push.U32(static_cast<uint32_t>(g.outer))
        .U32(static_cast<uint32_t>(g.axis))
        .U32(static_cast<uint32_t>(g.inner));
    ASSIGN_OR_RETURN(gather.pipeline, ctx.GetPipeline("ops/compress_gather", 4, gather.push.size(),
                                                      {kCompressLocal, 1, 1}, {elem}));
    gather.bindings = {BufferRef::Input(0),
                       BufferRef::Scratch(sel, gpu::Access::kRead),
                       {BufferRef::Source::kOutput, 1, gpu::Access::kRead},
                       BufferRef::Output(0)};
    gather.groups =
        GroupsFor(elem >= 4 ? bound : (bound * elem + 3) / 4, kCompressLocal, ctx.device());
    if (bound == 0) steps.pop_back();
    return std::make_unique<DispatchKernel>(std::move(steps));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Compress", 9, 27, CompressOp);

}  // namespace vkserve
