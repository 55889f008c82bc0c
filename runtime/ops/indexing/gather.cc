// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Gather (opsets 1-27): picks slices of `data` along `axis` (negative from
// opset 11) by int32/int64 indices (negative ones count from the end). The
// output shape is data[:axis] + indices.shape + data[axis+1:].
//
// Folded when data and indices are host-known and the output small (the
// Shape -> Gather idiom). Otherwise shaders/ops/gather.comp moves whole rows
// (embedding lookups), dtype-agnostic. Out-of-range indices are an error on
// the host; on the GPU, where nothing is read back mid-run, they are clamped
// into range instead of failing the request.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kGatherLocalSize = 256;

struct GatherParams {
  uint32_t count;
  uint32_t inner;
  uint32_t num_indices;
  uint32_t axis_dim;
};

struct GatherGeometry {
  int64_t axis = 0;
  int64_t outer = 1;
  int64_t axis_dim = 0;
  int64_t inner = 1;  // elements
  std::vector<int64_t> out_shape;
};

absl::StatusOr<GatherGeometry> GatherGeometryOf(const Node& node, const TensorDesc& data,
                                                const TensorDesc& indices) {
  GatherGeometry g;
  const int64_t rank = static_cast<int64_t>(data.shape.size());
  if (rank == 0) return absl::InvalidArgumentError("data must have rank >= 1");
  RETURN_IF_ERROR(CheckDataType(indices.dtype, {DataType::kInt32, DataType::kInt64}, "indices"));
  int64_t axis = node.GetInt("axis", 0);
  if (node.opset < 11 && axis < 0)
    return absl::InvalidArgumentError("negative axis needs opset 11");
  ASSIGN_OR_RETURN(g.axis, NormalizeAxis(axis, rank));
  for (int64_t i = 0; i < rank; ++i) {
    if (i < g.axis) {
      g.outer *= data.shape[i];
      g.out_shape.push_back(data.shape[i]);
    } else if (i == g.axis) {
      g.axis_dim = data.shape[i];
      g.out_shape.insert(g.out_shape.end(), indices.shape.begin(), indices.shape.end());
    } else {
      g.inner *= data.shape[i];
      g.out_shape.push_back(data.shape[i]);
    }
  }
  if (g.axis_dim == 0 && NumElements(g.out_shape) > 0) {
    return absl::InvalidArgumentError("cannot gather from an empty axis");
  }
  return g;
}

class GatherOp : public Op {
 public:
  const OpTraits& traits() const override {
    static const OpTraits kTraits{.float16 = Float16Use::kMoves};
    return kTraits;
  }
  absl::Status Validate(const Node& node) const override {
    return CheckAttributeType(node, "axis", Attribute::Type::kInt);
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* data, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* indices, RequireInput(ctx, 1));
    ASSIGN_OR_RETURN(GatherGeometry g, GatherGeometryOf(ctx.node, *data, *indices));
    TensorDesc& out = ctx.outputs[0];
    out.dtype = data->dtype;
    out.shape = g.out_shape;
    if (!ShouldFold(ctx, out.num_elements())) return absl::OkStatus();
    HostTensor t = ZeroTensor(out.dtype, out.shape);
    const int64_t n = indices->num_elements();
    for (int64_t j = 0; j < n; ++j) {
      int64_t idx = ElementAsInt(*indices->value, j);
      if (idx < -g.axis_dim || idx >= g.axis_dim) {
        return absl::InvalidArgumentError(
            absl::StrCat("index ", idx, " is out of range for axis dim ", g.axis_dim));
      }
      if (idx < 0) idx += g.axis_dim;
      for (int64_t o = 0; o < g.outer; ++o) {
        for (int64_t k = 0; k < g.inner; ++k) {
          CopyElement(*data->value, (o * g.axis_dim + idx) * g.inner + k, &t,
                      (o * n + j) * g.inner + k);
        }
      }
    }
    out.value = Share(std::move(t));
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& data = *ctx.input(0);
    const TensorDesc& indices = *ctx.input(1);
    RETURN_IF_ERROR(CheckMovableType(data.dtype));
    ASSIGN_OR_RETURN(GatherGeometry g, GatherGeometryOf(ctx.node(), data, indices));
    const int64_t elem = static_cast<int64_t>(DataTypeSize(data.dtype));
    int64_t unit = elem;
    for (int64_t u : {16, 8, 4, 2}) {
      if (u > elem && (g.inner * elem) % u == 0) {
        unit = u;
        break;
      }
    }
    const int64_t inner_units = g.inner * elem / unit;
    const int64_t count = NumElements(g.out_shape) * elem / unit;
    const int64_t num_indices = indices.num_elements();
    if (count > UINT32_MAX || g.outer * g.axis_dim * inner_units > UINT32_MAX) {
      return absl::UnimplementedError("Gather: tensor too large for 32-bit indexing");
    }
    GatherParams params{static_cast<uint32_t>(count),
                        static_cast<uint32_t>(std::max<int64_t>(1, inner_units)),
                        static_cast<uint32_t>(std::max<int64_t>(1, num_indices)),
                        static_cast<uint32_t>(g.axis_dim)};
    const uint32_t index64 = indices.dtype == DataType::kInt64 ? 1 : 0;
    ASSIGN_OR_RETURN(auto pipeline, ctx.GetPipeline("ops/gather", 3, sizeof(GatherParams),
                                                    {kGatherLocalSize, 1, 1},
                                                    {static_cast<uint32_t>(unit), index64}));
    if (count == 0) return MakeEmptyKernel();
    return MakeDispatchKernel(
        {std::move(pipeline),
         {BufferRef::Input(0), BufferRef::Input(1), BufferRef::Output(0, gpu::Access::kReadWrite)},
         PushBlock(params),
         GroupsFor(static_cast<uint64_t>(count), kGatherLocalSize, ctx.device())});
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Gather", 1, 27, GatherOp);

}  // namespace vkserve
