// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// MaxPool / AveragePool / GlobalAveragePool / GlobalMaxPool (see the header).
#include "runtime/ops/nn/pool_util.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/gemm/conv_geometry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

bool WantsIndices(const Node& node) { return node.outputs.size() > 1 && !node.outputs[1].empty(); }

const char* PoolName(PoolKind kind) {
  return kind == PoolKind::kMax ? "MaxPool" : kind == PoolKind::kLp ? "LpPool" : "AveragePool";
}

absl::StatusOr<Window> PoolWindow(const Node& node, PoolKind kind, const TensorDesc& x) {
  RETURN_IF_ERROR(CheckDataType(x.dtype, {DataType::kFloat, DataType::kFloat16},
                                absl::StrCat(PoolName(kind), " input X")));
  if (x.shape.size() < 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("X ", ShapeString(x.shape), " must have rank 3 or more"));
  }
  if (x.shape.size() > 5) {
    return absl::UnimplementedError(absl::StrCat("only 1-D, 2-D and 3-D ", PoolName(kind),
                                                 " are supported; X is ", ShapeString(x.shape)));
  }
  const std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  return ForwardWindow(node, spatial, node.GetInts("kernel_shape"),
                       node.GetInt("ceil_mode", 0) != 0);
}

std::vector<int64_t> PooledShape(const TensorDesc& x, const Window& w) {
  std::vector<int64_t> out = {x.shape[0], x.shape[1]};
  out.insert(out.end(), w.output.begin(), w.output.end());
  return out;
}

}  // namespace

absl::Status WindowPoolOp::Validate(const Node& node) const {
  RETURN_IF_ERROR(ValidateWindowAttributes(node));
  for (const char* name : {"ceil_mode", "count_include_pad", "storage_order", "p"}) {
    RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kInt));
  }
  if (node.GetInts("kernel_shape").empty()) {
    return absl::InvalidArgumentError("attribute 'kernel_shape' is required");
  }
  if (node.outputs.size() > 1 && !node.outputs[1].empty() && node.GetInt("storage_order", 0) != 0 &&
      node.GetInts("kernel_shape").size() != 2) {
    return absl::UnimplementedError("MaxPool's Indices with storage_order 1 only for 2-D windows");
  }
  return absl::OkStatus();
}

absl::Status WindowPoolOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
  ASSIGN_OR_RETURN(Window w, PoolWindow(ctx.node, kind_, *x));
  ctx.outputs.resize(ctx.node.outputs.size());
  ctx.outputs[0].dtype = x->dtype;
  ctx.outputs[0].shape = PooledShape(*x, w);
  if (WantsIndices(ctx.node)) {
    ctx.outputs[1].dtype = DataType::kInt64;
    ctx.outputs[1].shape = ctx.outputs[0].shape;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> WindowPoolOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& x = *ctx.input(0);
  ASSIGN_OR_RETURN(Window w, PoolWindow(ctx.node(), kind_, x));
  // 3-D: the depth dim apart, the last two as a 2-D window.
  Window hw = w;
  int64_t in_d = 1, out_d = 1, kd = 1, sd = 1, dd = 1, pad_front = 0, pad_back = 0;
  if (w.rank() == 3) {
    in_d = w.input[0], out_d = w.output[0], kd = w.kernel[0], sd = w.strides[0];
    dd = w.dilations[0], pad_front = w.pad_begin[0], pad_back = w.pad_end[0];
    for (std::vector<int64_t>* v : {&hw.input, &hw.kernel, &hw.strides, &hw.dilations,
                                    &hw.pad_begin, &hw.pad_end, &hw.output}) {
      v->erase(v->begin());
    }
  }
  const Window2D g = As2D(hw);
  const int64_t total = NumElements(PooledShape(x, w));
  if (total >= (int64_t{1} << 32) || x.num_elements() >= (int64_t{1} << 32)) {
    return absl::UnimplementedError("pooling tensors of 2^32 elements or more are not supported");
  }
  const bool average = kind_ == PoolKind::kAverage;
  const bool indices = kind_ == PoolKind::kMax && WantsIndices(ctx.node());
  const uint32_t kind = kind_ == PoolKind::kMax ? 0u : average ? 1u : 2u;
  const int64_t p = ctx.node().GetInt("p", 2);
  if (kind_ == PoolKind::kLp && (p < 1 || p > 64))
    return absl::UnimplementedError("LpPool's p must be 1 to 64");
  const bool include_pad = average && ctx.node().GetInt("count_include_pad", 0) != 0;
  constexpr uint32_t kLocal = 128;
  ASSIGN_OR_RETURN(
      auto pipeline,
      ctx.GetPipeline(
          x.dtype == DataType::kFloat16 ? "ops/pool_f16" : "ops/pool", 3, 52, {kLocal, 1, 1},
          {U32(g.kernel_h), U32(g.kernel_w), U32(g.stride_h), U32(g.stride_w), U32(g.dilation_h),
           U32(g.dilation_w), kind, include_pad ? 1u : 0u, U32(p), U32(kd), U32(sd), U32(dd),
           indices ? 1u : 0u, U32(ctx.node().GetInt("storage_order", 0))}));
  PushConstants pc;
  pc.U32(U32(g.in_h)).U32(U32(g.in_w)).U32(U32(g.out_h)).U32(U32(g.out_w)).U32(U32(total));
  pc.I32(g.pad_top).I32(g.pad_left).I32(g.pad_bottom).I32(g.pad_right);
  pc.U32(U32(in_d))
      .U32(U32(out_d))
      .I32(static_cast<int32_t>(pad_front))
      .I32(static_cast<int32_t>(pad_back));
  // pool.comp declares the Indices binding whether or not it writes it;
  // without Indices it aliases Y, untouched.
  return MakeDispatchKernel(
      {std::move(pipeline),
       {BufferRef::Input(0), BufferRef::Output(0), BufferRef::Output(indices ? 1 : 0)},
       std::move(pc),
       GroupsFor(total, kLocal, ctx.device())});
}

absl::Status GlobalPoolOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
  RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat, DataType::kFloat16}, "input X"));
  if (x->shape.size() < 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("X ", ShapeString(x->shape), " must have rank 3 or more"));
  }
  ctx.outputs.resize(1);
  ctx.outputs[0].dtype = x->dtype;
  ctx.outputs[0].shape = x->shape;
  std::fill(ctx.outputs[0].shape.begin() + 2, ctx.outputs[0].shape.end(), 1);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> GlobalPoolOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& x = *ctx.input(0);
  const int64_t rows = x.shape[0] * x.shape[1];
  const int64_t hw = rows > 0 ? x.num_elements() / rows : 0;
  if (x.num_elements() >= (int64_t{1} << 32)) {
    return absl::UnimplementedError("pooling tensors of 2^32 elements or more are not supported");
  }
  // A power of two covering the row, between 32 and 256 invocations.
  const uint32_t max_local = std::min<uint32_t>(256, ctx.device().info().max_workgroup_invocations);
  uint32_t local = 32;
  while (local < max_local && local < hw) local *= 2;
  local = std::min(local, max_local);
  const char* shader = x.dtype == DataType::kFloat16 ? "ops/global_pool_f16" : "ops/global_pool";
  ASSIGN_OR_RETURN(auto pipeline, ctx.GetPipeline(shader, 2, 8, {local, 1, 1},
                                                  {kind_ == PoolKind::kAverage ? 1u : 0u}));
  PushConstants pc;
  pc.U32(U32(hw)).U32(U32(rows));
  return MakeDispatchKernel({std::move(pipeline),
                             {BufferRef::Input(0), BufferRef::Output(0)},
                             std::move(pc),
                             GroupsFor(rows, 1, ctx.device())});
}

}  // namespace vkserve
