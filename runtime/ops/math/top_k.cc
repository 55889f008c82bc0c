// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// TopK (opsets 10-27): the k (input 1, host-known) largest (or, largest = 0,
// smallest) values along `axis` and their int64 indices, sorted, equal
// values in index order (shaders/ops/top_k.comp: one invocation per element
// finds its rank). `sorted` = 0 allows any order; vkserve returns them
// sorted all the same. fp32, and 32- and 64-bit
// integers, signed or not, compared exactly (ops/top_k_int, no shaderInt64
// needed); 8- and 16-bit integers, float16 and bfloat16 through fp32, which
// holds them exactly.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/via_float32.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kTopKLocal = 64;

// The integer types ops/top_k_int compares: 0 for others.
uint32_t IntBytes(DataType t) {
  switch (t) {
    case DataType::kInt32:
    case DataType::kUint32:
      return 4;
    case DataType::kInt64:
    case DataType::kUint64:
      return 8;
    default:
      return 0;
  }
}

struct TopKRows {
  int64_t outer = 1, axis = 1, inner = 1, k = 0;
  std::vector<int64_t> out_shape;
};

absl::StatusOr<TopKRows> TopKRowsOf(const Node& node, const std::vector<int64_t>& shape,
                                    const TensorDesc* k) {
  if (k == nullptr || k->value == nullptr) {
    return absl::UnimplementedError(
        "TopK's k must be known at load time (a constant); vkserve never reads tensor data back "
        "in the middle of a run");
  }
  if (k->value->num_elements() != 1) return absl::InvalidArgumentError("k must hold one value");
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (rank == 0) return absl::InvalidArgumentError("TopK of a scalar");
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(node.GetInt("axis", -1), rank));
  TopKRows r;
  r.k = ElementAsInt(*k->value, 0);
  if (r.k < 0 || r.k > shape[axis]) {
    return absl::InvalidArgumentError(absl::StrCat("k = ", r.k, " outside [0, ", shape[axis], "]"));
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis) r.outer *= shape[d];
    if (d > axis) r.inner *= shape[d];
  }
  r.axis = shape[axis];
  r.out_shape = shape;
  r.out_shape[axis] = r.k;
  return r;
}

class TopKOp : public Op {
 public:
  bool IsHostInput(const Node& /*node*/, size_t input_index) const override {
    return input_index == 1;
  }

  absl::Status Validate(const Node& node) const override {
    for (const char* name : {"axis", "largest", "sorted"}) {
      RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kInt));
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    RETURN_IF_ERROR(CheckDataType(x->dtype,
                                  {DataType::kFloat, DataType::kInt32, DataType::kUint32,
                                   DataType::kInt64, DataType::kUint64},
                                  "input 0"));
    ASSIGN_OR_RETURN(const TopKRows r, TopKRowsOf(ctx.node, x->shape, ctx.input(1)));
    ctx.outputs[0].dtype = x->dtype;
    ctx.outputs[0].shape = r.out_shape;
    if (ctx.outputs.size() > 1) {
      ctx.outputs[1].dtype = DataType::kInt64;
      ctx.outputs[1].shape = r.out_shape;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    ASSIGN_OR_RETURN(const TopKRows r, TopKRowsOf(ctx.node(), x.shape, ctx.input(1)));
    if (x.num_elements() >= (int64_t{1} << 32))
      return absl::UnimplementedError("TopK: tensor too large");
    const uint64_t rows = static_cast<uint64_t>(r.outer * r.inner);
    if (rows == 0 || r.k == 0) return MakeEmptyKernel();
    // Each invocation ranks one element against the whole axis.
    RETURN_IF_ERROR(
        CheckInvocationLoops(ctx.device().info(), static_cast<uint64_t>(r.axis),
                             absl::StrCat("TopK over an axis of ", r.axis, " elements")));
    const bool indices = ctx.num_outputs() > 1 && ctx.output(1).dtype != DataType::kUndefined;
    const uint32_t scratch =
        indices ? 0 : ctx.RequestScratch(static_cast<uint64_t>(rows * r.k) * 8);
    DispatchStep step;
    step.push.U32(static_cast<uint32_t>(rows))
        .U32(static_cast<uint32_t>(r.axis))
        .U32(static_cast<uint32_t>(r.inner))
        .U32(static_cast<uint32_t>(r.k));
    const uint32_t int_bytes = IntBytes(x.dtype);
    const bool is_signed = x.dtype == DataType::kInt32 || x.dtype == DataType::kInt64;
    ASSIGN_OR_RETURN(step.pipeline,
                     ctx.GetPipeline(int_bytes != 0 ? "ops/top_k_int" : "ops/top_k", 3,
                                     step.push.size(), {kTopKLocal, 1, 1},
                                     {ctx.node().GetInt("largest", 1) != 0 ? 1u : 0u,
                                      int_bytes != 0 ? int_bytes : 4u, is_signed ? 1u : 0u}));
    step.bindings = {
        BufferRef::Input(0), BufferRef::Output(0),
        indices ? BufferRef::Output(1) : BufferRef::Scratch(scratch, gpu::Access::kWrite)};
    step.groups = GroupsFor(rows * static_cast<uint64_t>(r.axis), kTopKLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "TopK", 10, 27, ExactViaFloat32<TopKOp>);

}  // namespace vkserve
