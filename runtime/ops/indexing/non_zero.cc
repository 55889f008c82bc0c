// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// NonZero (opsets 9-27): the int64 coordinates [rank, n] of the non-zero
// elements of any 1-, 2-, 4- or 8-byte type, row-major. n depends on the
// data: folded on the host when X is known at plan time, else the node runs
// at a sync point (runtime/sync_split.h) with output 0 at its bound
// [rank, elements] and the count as output 1 (shaders/ops/non_zero.comp).
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kNonZeroLocal = 128;  // shaders/ops/non_zero.comp LOCAL
constexpr size_t kNonZeroMaxRank = 8;

class NonZeroOp : public Op {
 public:
  int sync_count_output() const override { return 1; }
  int DataDependentAxis(const Node& /*node*/, size_t output, size_t /*rank*/) const override {
    return output == 0 ? 1 : -1;
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    const int64_t rank = static_cast<int64_t>(x->shape.size());
    if (rank == 0 || rank > static_cast<int64_t>(kNonZeroMaxRank)) {
      return absl::UnimplementedError(absl::StrCat("NonZero of rank ", rank, " (1 to 8)"));
    }
    const bool at_sync_point = AtSyncPoint(ctx.node, sync_count_output());
    ctx.outputs[0].dtype = DataType::kInt64;
    if (!at_sync_point && x->value != nullptr && IsFoldableType(x->dtype) &&
        x->num_elements() <= ctx.max_fold_elements) {
      std::vector<int64_t> hits;
      for (int64_t i = 0; i < x->num_elements(); ++i) {
        if (ElementAsDouble(*x->value, i) != 0) hits.push_back(i);
      }
      const int64_t n = static_cast<int64_t>(hits.size());
      HostTensor y = ZeroTensor(DataType::kInt64, {rank, n});
      const std::vector<int64_t> strides = Strides(x->shape);
      for (int64_t k = 0; k < n; ++k) {
        for (int64_t r = 0; r < rank; ++r)
          SetElementFromInt(&y, r * n + k, hits[k] / strides[r] % x->shape[r]);
      }
      ctx.outputs[0].shape = {rank, n};
      ctx.outputs[0].value = Share(std::move(y));
      return absl::OkStatus();
    }
    if (!at_sync_point) {
      return absl::UnimplementedError(absl::StrCat(
          "NonZero of a constant too large to fold at load (", x->num_elements(), " elements)"));
    }
    const size_t size = DataTypeSize(x->dtype);
    if (size != 1 && size != 2 && size != 4 && size != 8) {
      return absl::UnimplementedError(
          absl::StrCat("NonZero of ", std::string(DataTypeName(x->dtype))));
    }
    ctx.outputs[0].shape = {rank, x->num_elements()};
    ctx.outputs[1].dtype = DataType::kInt64;
    ctx.outputs[1].shape = {1};
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    if (x.num_elements() >= (int64_t{1} << 31))
      return absl::UnimplementedError("NonZero: tensor too large");
    // The busiest invocation counts its chunk, sums the LOCAL offsets, and
    // writes each coordinate of its chunk, each loop counted one more than
    // its trips; half the device's limit leaves a margin.
    const uint64_t chunk =
        (static_cast<uint64_t>(x.num_elements()) + kNonZeroLocal - 1) / kNonZeroLocal;
    RETURN_IF_ERROR(CheckInvocationLoops(
        ctx.device().info(), 2 * (chunk + 1) + (kNonZeroLocal + 1) + chunk * (x.shape.size() + 1),
        absl::StrCat("NonZero of ", x.num_elements(), " elements"), 0.5));
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(x.num_elements()))
        .U32(static_cast<uint32_t>(x.shape.size()));
    for (size_t d = 0; d < kNonZeroMaxRank; ++d) {
      step.push.U32(d < x.shape.size() ? static_cast<uint32_t>(x.shape[d]) : 1);
    }
    const uint32_t is_float = IsFloatType(x.dtype) ? 1 : 0;
    ASSIGN_OR_RETURN(step.pipeline,
                     ctx.GetPipeline("ops/non_zero", 3, step.push.size(), {kNonZeroLocal, 1, 1},
                                     {static_cast<uint32_t>(DataTypeSize(x.dtype)), is_float}));
    step.bindings = {BufferRef::Input(0), BufferRef::Output(0), BufferRef::Output(1)};
    step.groups = {1, 1, 1};
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "NonZero", 9, 27, NonZeroOp);

}  // namespace vkserve
