// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/logical/comparison_op.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kComparisonLocalSize = 256;
constexpr size_t kComparisonMaxRank = 7;

using Kind = ComparisonOp::Kind;

bool IsSigned(DataType t) {
  return t == DataType::kInt8 || t == DataType::kInt16 || t == DataType::kInt32 ||
         t == DataType::kInt64;
}

// The ops' type constraints.
absl::Status CheckOperandType(Kind kind, DataType t) {
  const std::string name(DataTypeName(t));
  switch (kind) {
    case Kind::kAnd:
    case Kind::kOr:
    case Kind::kXor:
    case Kind::kNot:
      if (t != DataType::kBool)
        return absl::InvalidArgumentError(absl::StrCat("takes bool, not ", name));
      return absl::OkStatus();
    case Kind::kIsNaN:
    case Kind::kIsInf:
      if (!IsFloatType(t))
        return absl::InvalidArgumentError(absl::StrCat("takes floats, not ", name));
      return absl::OkStatus();
    default:
      if (!IsFoldableType(t))
        return absl::UnimplementedError(absl::StrCat("inputs of type ", name));
      if (kind != Kind::kEqual && t == DataType::kBool) {
        return absl::InvalidArgumentError("ordering comparisons take numbers, not bool");
      }
      return absl::OkStatus();
  }
}

// The host reference, for folding. Floats compare as doubles (NaN unordered),
// integers as int64 (uint64 beyond INT64_MAX is not foldable here either way).
bool ComparisonFold(Kind kind, const HostTensor& a, int64_t ia, const HostTensor* b, int64_t ib,
                    bool detect_positive, bool detect_negative) {
  const bool floats = IsFloatType(a.dtype);
  if (kind == Kind::kIsNaN) return std::isnan(ElementAsDouble(a, ia));
  if (kind == Kind::kIsInf) {
    const double x = ElementAsDouble(a, ia);
    return std::isinf(x) && ((x > 0 && detect_positive) || (x < 0 && detect_negative));
  }
  if (kind == Kind::kNot) return ElementAsInt(a, ia) == 0;
  if (floats) {
    const double x = ElementAsDouble(a, ia), y = ElementAsDouble(*b, ib);
    switch (kind) {
      case Kind::kEqual:
        return x == y;
      case Kind::kGreater:
        return x > y;
      case Kind::kLess:
        return x < y;
      case Kind::kGreaterOrEqual:
        return x >= y;
      case Kind::kLessOrEqual:
        return x <= y;
      default:
        return false;
    }
  }
  const int64_t x = ElementAsInt(a, ia), y = ElementAsInt(*b, ib);
  switch (kind) {
    case Kind::kEqual:
      return x == y;
    case Kind::kGreater:
      return x > y;
    case Kind::kLess:
      return x < y;
    case Kind::kGreaterOrEqual:
      return x >= y;
    case Kind::kLessOrEqual:
      return x <= y;
    case Kind::kAnd:
      return (x != 0) && (y != 0);
    case Kind::kOr:
      return (x != 0) || (y != 0);
    case Kind::kXor:
      return (x != 0) != (y != 0);
    default:
      return false;
  }
}

}  // namespace

absl::Status ComparisonOp::Validate(const Node& node) const {
  if (node.opset < 7 && node.GetInt("broadcast", 0) != 0 && node.FindAttribute("axis") != nullptr) {
    return absl::UnimplementedError("legacy broadcasting with 'axis' is not supported");
  }
  if (kind_ == Kind::kIsInf) {
    RETURN_IF_ERROR(CheckAttributeType(node, "detect_positive", Attribute::Type::kInt));
    RETURN_IF_ERROR(CheckAttributeType(node, "detect_negative", Attribute::Type::kInt));
  }
  return absl::OkStatus();
}

absl::Status ComparisonOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* a, RequireInput(ctx, 0));
  const TensorDesc* b = a;
  if (!unary()) {
    ASSIGN_OR_RETURN(b, RequireInput(ctx, 1));
    if (a->dtype != b->dtype) {
      return absl::InvalidArgumentError(
          absl::StrCat("A (", a->ToString(), ") and B (", b->ToString(), ") differ in type"));
    }
  }
  RETURN_IF_ERROR(CheckOperandType(kind_, a->dtype));
  TensorDesc& out = ctx.outputs[0];
  out.dtype = DataType::kBool;
  ASSIGN_OR_RETURN(out.shape, BroadcastShapes(a->shape, b->shape));
  if (!ShouldFold(ctx, out.num_elements())) return absl::OkStatus();
  const bool pos = ctx.node.GetInt("detect_positive", 1) != 0;
  const bool neg = ctx.node.GetInt("detect_negative", 1) != 0;
  HostTensor t = ZeroTensor(DataType::kBool, out.shape);
  const BroadcastIndex ai(a->shape, out.shape), bi(b->shape, out.shape);
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    t.data[i] =
        ComparisonFold(kind_, *a->value, ai(i), unary() ? nullptr : b->value.get(), bi(i), pos, neg)
            ? 1
            : 0;
  }
  out.value = Share(std::move(t));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> ComparisonOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& a = *ctx.input(0);
  const TensorDesc& b = unary() ? a : *ctx.input(1);
  uint32_t float_kind = 0;
  if (a.dtype == DataType::kFloat) {
    float_kind = 1;
  } else if (a.dtype == DataType::kFloat16) {
    float_kind = 2;
  } else if (IsFloatType(a.dtype)) {
    return absl::UnimplementedError(absl::StrCat("comparing ", std::string(DataTypeName(a.dtype)),
                                                 " is not supported on the GPU"));
  }
  RETURN_IF_ERROR(CheckMovableType(a.dtype));
  ASSIGN_OR_RETURN(std::vector<int64_t> shape, BroadcastShapes(a.shape, b.shape));
  const int64_t count = NumElements(shape);
  std::vector<int64_t> as = BroadcastStrides(a.shape, shape);
  std::vector<int64_t> bs = BroadcastStrides(b.shape, shape);
  SimplifyStrides(&shape, {&as, &bs});
  if (shape.size() > kComparisonMaxRank) {
    return absl::UnimplementedError(absl::StrCat(
        "broadcasting over ", shape.size(), " dims (after merging) exceeds ", kComparisonMaxRank));
  }
  if (count > INT32_MAX) return absl::UnimplementedError("tensor too large");
  if (count == 0) return MakeEmptyKernel();
  // IsInf's two switches ride in the OP constant's high bits.
  uint32_t op = static_cast<uint32_t>(kind_);
  if (kind_ == Kind::kIsInf) {
    op |= (ctx.node().GetInt("detect_positive", 1) != 0 ? 0x100u : 0u) |
          (ctx.node().GetInt("detect_negative", 1) != 0 ? 0x200u : 0u);
  }
  // compare.comp's push block: count, rank, then shape, a and b strides
  // for kComparisonMaxRank dims each.
  DispatchStep step;
  step.push.U32(static_cast<uint32_t>(count)).U32(static_cast<uint32_t>(shape.size()));
  for (size_t k = 0; k < kComparisonMaxRank; ++k)
    step.push.U32(k < shape.size() ? static_cast<uint32_t>(shape[k]) : 0);
  for (size_t k = 0; k < kComparisonMaxRank; ++k)
    step.push.I32(k < shape.size() ? static_cast<int32_t>(as[k]) : 0);
  for (size_t k = 0; k < kComparisonMaxRank; ++k)
    step.push.I32(k < shape.size() ? static_cast<int32_t>(bs[k]) : 0);
  const uint32_t elem = static_cast<uint32_t>(DataTypeSize(a.dtype));
  ASSIGN_OR_RETURN(step.pipeline,
                   ctx.GetPipeline("ops/compare", 3, step.push.size(), {kComparisonLocalSize, 1, 1},
                                   {elem, float_kind, op, IsSigned(a.dtype) ? 1u : 0u}));
  // Unary ops read their one input through both operand bindings.
  step.bindings = {BufferRef::Input(0), BufferRef::Input(unary() ? 0 : 1), BufferRef::Output(0)};
  const uint64_t words = (static_cast<uint64_t>(count) + 3) / 4;  // four bools per invocation
  step.groups = GroupsFor(words, kComparisonLocalSize, ctx.device());
  return MakeDispatchKernel(std::move(step));
}

}  // namespace vkserve
