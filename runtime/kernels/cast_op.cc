// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/kernels/cast_op.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "runtime/ir/data_type.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kCastLocalSize = 256;

// `t` (float) with every finite element clamped to fp16's range.
HostTensor Saturated(const HostTensor& t) {
  HostTensor s = t;
  for (int64_t i = 0; i < s.num_elements(); ++i) {
    SetElementFromDouble(&s, i, SaturateToHalfRange(static_cast<float>(ElementAsDouble(t, i))));
  }
  return s;
}

}  // namespace

absl::StatusOr<DataType> CastTypeAttribute(const Node& node) {
  const Attribute* to = node.FindAttribute("to");
  if (to == nullptr) return absl::InvalidArgumentError("attribute 'to' is required");
  DataType type = DataType::kUndefined;
  if (to->type == Attribute::Type::kString) {
    static const auto* kNames = new std::map<std::string, DataType>{
        {"FLOAT", DataType::kFloat},      {"UINT8", DataType::kUint8},
        {"INT8", DataType::kInt8},        {"UINT16", DataType::kUint16},
        {"INT16", DataType::kInt16},      {"INT32", DataType::kInt32},
        {"INT64", DataType::kInt64},      {"BOOL", DataType::kBool},
        {"FLOAT16", DataType::kFloat16},  {"DOUBLE", DataType::kDouble},
        {"UINT32", DataType::kUint32},    {"UINT64", DataType::kUint64},
        {"BFLOAT16", DataType::kBFloat16}};
    auto it = kNames->find(to->s);
    if (it != kNames->end()) type = it->second;
  } else if (to->type == Attribute::Type::kInt) {
    if (IsKnownDataType(static_cast<int32_t>(to->i))) type = static_cast<DataType>(to->i);
  } else {
    return absl::InvalidArgumentError("attribute 'to' must be an int");
  }
  if (!IsFoldableType(type)) {
    return absl::UnimplementedError("Cast to this type is not supported");
  }
  return type;
}

absl::Status ConvertOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* in, RequireInput(ctx, 0));
  ASSIGN_OR_RETURN(DataType to, TargetType(ctx.node, ctx.input(1)));
  TensorDesc& out = ctx.outputs[0];
  out.dtype = to;
  out.shape = in->shape;
  // Only input 0's values matter (CastLike's input 1 lends its type).
  if (in->value != nullptr && out.num_elements() <= ctx.max_fold_elements) {
    const bool saturate = ctx.node.GetInt(kCastSaturateAttr, 0) != 0 &&
                          in->value->dtype == DataType::kFloat && to == DataType::kFloat16;
    ASSIGN_OR_RETURN(HostTensor t,
                     ConvertTensor(saturate ? Saturated(*in->value) : *in->value, to));
    out.value = Share(std::move(t));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateCastKernel(KernelContext& ctx, DataType from,
                                                         DataType to, int64_t n) {
  if (from == to) return CreateStridedCopyKernel(ctx, to, {ContiguousCopy(n)});
  if (!IsFoldableType(from) || !IsFoldableType(to)) {
    return absl::UnimplementedError(absl::StrCat("Cast from ", std::string(DataTypeName(from)),
                                                 " to ", std::string(DataTypeName(to)),
                                                 " is not supported on the GPU"));
  }
  if (n > UINT32_MAX) return absl::UnimplementedError("Cast: tensor too large");
  ASSIGN_OR_RETURN(auto pipeline,
                   ctx.GetPipeline("ops/cast", 2, sizeof(uint32_t), {kCastLocalSize, 1, 1},
                                   {static_cast<uint32_t>(from), static_cast<uint32_t>(to)}));
  if (n == 0) return MakeEmptyKernel();
  PushConstants pc;
  pc.U32(static_cast<uint32_t>(n));
  return MakeDispatchKernel({std::move(pipeline),
                             {BufferRef::Input(0), BufferRef::Output(0, gpu::Access::kReadWrite)},
                             std::move(pc),
                             GroupsFor(static_cast<uint64_t>(n), kCastLocalSize, ctx.device())});
}

absl::StatusOr<std::unique_ptr<Kernel>> ConvertOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& in = *ctx.input(0);
  ASSIGN_OR_RETURN(DataType to, TargetType(ctx.node(), ctx.input(1)));
  return CreateCastKernel(ctx, in.dtype, to, in.num_elements());
}

}  // namespace vkserve
