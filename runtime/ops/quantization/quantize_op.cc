// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/quantization/quantize_op.h"

#include "absl/strings/str_cat.h"
#include "runtime/kernels/cast_op.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kQuantizeLocal = 256;
constexpr size_t kQuantizeMaxRank = 6;

bool IsQuantizedType(DataType t, bool dequantize) {
  return t == DataType::kInt8 || t == DataType::kUint8 || t == DataType::kInt16 ||
         t == DataType::kUint16 || t == DataType::kInt2 || t == DataType::kUint2 ||
         (dequantize && t == DataType::kInt32);
}

// Where each element's scale sits: strides over x's dims (0 where the scale
// does not vary) and the blocked axis.
struct ScaleLayout {
  std::vector<int64_t> strides;
  int64_t axis = 0, block = 1;
};

absl::StatusOr<ScaleLayout> QuantizeLayoutOf(const Node& node, const std::vector<int64_t>& x,
                                             const std::vector<int64_t>& scale) {
  const int64_t rank = static_cast<int64_t>(x.size());
  if (rank > static_cast<int64_t>(kQuantizeMaxRank))
    return absl::UnimplementedError("more than 6 dims");
  ScaleLayout l;
  l.strides.assign(x.size(), 0);
  const int64_t scale_count = NumElements(scale);
  if (scale.empty() || scale_count == 1) return l;  // per tensor
  ASSIGN_OR_RETURN(l.axis, NormalizeAxis(node.GetInt("axis", 1), rank));
  const int64_t block = node.GetInt("block_size", 0);
  if (block <= 0) {
    if (scale.size() != 1 || scale[0] != x[l.axis]) {
      return absl::InvalidArgumentError(
          absl::StrCat("scale ", ShapeString(scale), " is not per axis of ", ShapeString(x)));
    }
    l.strides[l.axis] = 1;
    return l;
  }
  if (scale.size() != x.size())
    return absl::InvalidArgumentError("blocked scales must have x's rank");
  const std::vector<int64_t> own = Strides(scale);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t want = d == l.axis ? (x[d] + block - 1) / block : x[d];
    if (scale[d] != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          "scale ", ShapeString(scale), " does not block ", ShapeString(x), " by ", block));
    }
    l.strides[d] = own[d];
  }
  l.block = block;
  return l;
}

absl::StatusOr<DataType> QuantizedType(const Node& node, const TensorDesc* zero_point) {
  if (node.GetInt("output_dtype", 0) != 0) {
    Node cast = node;
    cast.attributes["to"] = node.attributes.at("output_dtype");
    ASSIGN_OR_RETURN(const DataType t, CastTypeAttribute(cast));
    if (zero_point != nullptr && zero_point->dtype != t) {
      return absl::InvalidArgumentError("output_dtype and the zero point's type differ");
    }
    return t;
  }
  return zero_point != nullptr ? zero_point->dtype : DataType::kUint8;
}

}  // namespace

absl::Status QuantizeOp::Validate(const Node& node) const {
  for (const char* name : {"axis", "block_size", "output_dtype", "saturate", "precision"}) {
    RETURN_IF_ERROR(CheckAttributeType(node, name, Attribute::Type::kInt));
  }
  return absl::OkStatus();
}

absl::Status QuantizeOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
  ASSIGN_OR_RETURN(const TensorDesc* scale, RequireInput(ctx, 1));
  const TensorDesc* zp = ctx.input(2);
  RETURN_IF_ERROR(CheckDataType(scale->dtype, {DataType::kFloat}, "scale"));
  if (zp != nullptr && zp->shape != scale->shape &&
      NumElements(zp->shape) != NumElements(scale->shape)) {
    return absl::InvalidArgumentError("the zero point and the scale differ in shape");
  }
  RETURN_IF_ERROR(QuantizeLayoutOf(ctx.node, x->shape, scale->shape).status());
  const DataType q =
      dequantize_ ? x->dtype : QuantizedType(ctx.node, zp).value_or(DataType::kUndefined);
  if (!IsQuantizedType(q, dequantize_)) {
    return absl::UnimplementedError(
        absl::StrCat(ctx.node.op_type, " of ", std::string(DataTypeName(q)),
                     " (int8, uint8, int16, uint16", dequantize_ ? ", int32)" : ")"));
  }
  if (zp != nullptr && zp->dtype != q)
    return absl::InvalidArgumentError("the zero point's type differs");
  if (!dequantize_) RETURN_IF_ERROR(CheckDataType(x->dtype, {DataType::kFloat}, "x"));
  ctx.outputs[0].dtype = dequantize_ ? DataType::kFloat : q;
  ctx.outputs[0].shape = x->shape;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> QuantizeOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& x = *ctx.input(0);
  const TensorDesc* zp = ctx.input(2);
  ASSIGN_OR_RETURN(const ScaleLayout l, QuantizeLayoutOf(ctx.node(), x.shape, ctx.input(1)->shape));
  const DataType q = dequantize_ ? x.dtype : ctx.output(0).dtype;
  const uint64_t n = static_cast<uint64_t>(x.num_elements());
  if (n >= (uint64_t{1} << 31)) return absl::UnimplementedError("tensor too large");
  if (n == 0) return MakeEmptyKernel();
  const uint32_t qbytes = static_cast<uint32_t>(DataTypeSize(q));
  const bool is_signed = q == DataType::kInt8 || q == DataType::kInt16 || q == DataType::kInt32 ||
                         q == DataType::kInt2;
  // Saturation bits: the 2-bit types are held one per byte.
  const uint32_t qbits = q == DataType::kInt2 || q == DataType::kUint2 ? 2 : 8 * qbytes;
  DispatchStep step;
  step.push.U32(static_cast<uint32_t>(n)).U32(static_cast<uint32_t>(x.shape.size()));
  for (size_t d = 0; d < kQuantizeMaxRank; ++d)
    step.push.U32(d < x.shape.size() ? static_cast<uint32_t>(x.shape[d]) : 1);
  for (size_t d = 0; d < kQuantizeMaxRank; ++d)
    step.push.U32(d < l.strides.size() ? static_cast<uint32_t>(l.strides[d]) : 0);
  step.push.U32(static_cast<uint32_t>(l.axis)).U32(static_cast<uint32_t>(l.block));
  ASSIGN_OR_RETURN(step.pipeline,
                   ctx.GetPipeline("ops/quantize", 4, step.push.size(), {kQuantizeLocal, 1, 1},
                                   {dequantize_ ? 1u : 0u, qbytes, is_signed ? 1u : 0u,
                                    zp != nullptr ? 1u : 0u, qbits}));
  step.bindings = {BufferRef::Input(0), BufferRef::Input(1),
                   BufferRef::Input(zp != nullptr ? 2 : 1), BufferRef::Output(0)};
  const uint64_t invocations = dequantize_ ? n : (n + (4 / qbytes) - 1) / (4 / qbytes);
  step.groups = GroupsFor(invocations, kQuantizeLocal, ctx.device());
  return MakeDispatchKernel(std::move(step));
}

}  // namespace vkserve
