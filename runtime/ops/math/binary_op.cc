// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/math/binary_op.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kBinaryLocal = 256;
constexpr size_t kBinaryMaxRank = 6;  // binary.comp's general mode

enum BinaryMode : uint32_t {
  kGeneral = 0,
  kSameShape = 1,
  kScalarB = 2,
  kScalarA = 3,
  kVectorB = 4,
  kVectorA = 5,
};

// Strides of `shape` right-aligned to `rank` dims, 0 where it broadcasts.
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& shape, size_t rank) {
  std::vector<int64_t> strides(rank, 0);
  const std::vector<int64_t> own = Strides(shape);
  const size_t offset = rank - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) strides[offset + d] = shape[d] == 1 ? 0 : own[d];
  return strides;
}

// The output's dims with both inputs' strides, size-1 dims dropped and
// neighbours merged where both inputs step through them alike.
struct BinaryLayout {
  std::vector<int64_t> dims, a, b;
};

BinaryLayout Simplify(const std::vector<int64_t>& out, const std::vector<int64_t>& a_shape,
                      const std::vector<int64_t>& b_shape) {
  const std::vector<int64_t> sa = BroadcastStrides(a_shape, out.size());
  const std::vector<int64_t> sb = BroadcastStrides(b_shape, out.size());
  BinaryLayout l;
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;
    if (!l.dims.empty() && l.a.back() == sa[d] * out[d] && l.b.back() == sb[d] * out[d]) {
      l.dims.back() *= out[d];
      l.a.back() = sa[d];
      l.b.back() = sb[d];
      continue;
    }
    l.dims.push_back(out[d]);
    l.a.push_back(sa[d]);
    l.b.push_back(sb[d]);
  }
  return l;
}

// When `strides` step through exactly one of `dims` with stride 1 (a vector
// broadcast over the others), that dim's index; else -1.
int VectorDim(const std::vector<int64_t>& strides) {
  int found = -1;
  for (size_t d = 0; d < strides.size(); ++d) {
    if (strides[d] == 0) continue;
    if (strides[d] != 1 || found >= 0) return -1;
    found = static_cast<int>(d);
  }
  return found;
}

int64_t FoldInt(BinaryOp::Kind kind, int64_t x, int64_t y) {
  switch (kind) {
    case BinaryOp::Kind::kAdd:
      return x + y;
    case BinaryOp::Kind::kSub:
      return x - y;
    case BinaryOp::Kind::kMul:
      return x * y;
    // C++ division truncates toward zero, as onnxruntime's does.
    case BinaryOp::Kind::kDiv:
      return y == 0 ? 0 : x / y;
    case BinaryOp::Kind::kPRelu:
      return x < 0 ? x * y : x;
    case BinaryOp::Kind::kPow: {
      if (y < 0) return x == 1 ? 1 : (x == -1 ? (y % 2 == 0 ? 1 : -1) : 0);
      int64_t r = 1;
      for (int64_t k = 0; k < y && k < 64; ++k) r *= x;
      return r;
    }
    case BinaryOp::Kind::kMin:
      return std::min(x, y);
    case BinaryOp::Kind::kMax:
      return std::max(x, y);
    case BinaryOp::Kind::kMod: {
      if (y == 0) return 0;
      const int64_t r = x % y;
      return r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
    }
    case BinaryOp::Kind::kFmod:
      return y == 0 ? 0 : x % y;
    case BinaryOp::Kind::kBitwiseAnd:
      return x & y;
    case BinaryOp::Kind::kBitwiseOr:
      return x | y;
    case BinaryOp::Kind::kBitwiseXor:
      return x ^ y;
    // Callers narrow the result to the element type (SetElementFromInt).
    case BinaryOp::Kind::kShiftLeft:
      return y < 0 || y >= 64 ? 0 : static_cast<int64_t>(static_cast<uint64_t>(x) << y);
    case BinaryOp::Kind::kShiftRight:
      return y < 0 || y >= 64 ? 0 : static_cast<int64_t>(static_cast<uint64_t>(x) >> y);
  }
  return 0;
}

double FoldFloat(BinaryOp::Kind kind, double x, double y) {
  switch (kind) {
    case BinaryOp::Kind::kAdd:
      return x + y;
    case BinaryOp::Kind::kSub:
      return x - y;
    case BinaryOp::Kind::kMul:
      return x * y;
    case BinaryOp::Kind::kDiv:
      return x / y;
    case BinaryOp::Kind::kPRelu:
      return x < 0 ? x * y : x;
    case BinaryOp::Kind::kPow:
      return std::pow(x, y);
    case BinaryOp::Kind::kMin:
      return std::min(x, y);
    case BinaryOp::Kind::kMax:
      return std::max(x, y);
    case BinaryOp::Kind::kMod:
    case BinaryOp::Kind::kFmod:
      return std::fmod(x, y);
    default:
      return 0;  // integer-only kinds (Infer refuses floats)
  }
}

bool IsUnsigned(DataType t) {
  return t == DataType::kUint8 || t == DataType::kUint16 || t == DataType::kUint32 ||
         t == DataType::kUint64;
}

// The integer types binary_int.comp computes.
bool IsGpuInteger(DataType t) {
  switch (t) {
    case DataType::kInt8:
    case DataType::kUint8:
    case DataType::kInt16:
    case DataType::kUint16:
    case DataType::kInt32:
    case DataType::kUint32:
    case DataType::kInt64:
    case DataType::kUint64:
      return true;
    default:
      return false;
  }
}

}  // namespace

absl::Status BinaryOp::Infer(InferContext& ctx) const {
  const Kind kind = KindOf(ctx.node);
  const size_t count = arity_ == Arity::kBinary       ? 2
                       : arity_ == Arity::kComplement ? 1
                                                      : ctx.inputs.size();
  if (count == 0) return absl::InvalidArgumentError("no inputs");
  std::vector<const TensorDesc*> in;
  for (size_t i = 0; i < count; ++i) {
    ASSIGN_OR_RETURN(const TensorDesc* t, RequireInput(ctx, i));
    in.push_back(t);
  }
  std::vector<int64_t> shape = in[0]->shape;
  for (size_t i = 1; i < count; ++i) {
    if (in[i]->dtype != in[0]->dtype) {
      return absl::InvalidArgumentError(absl::StrCat("inputs have different types (",
                                                     std::string(DataTypeName(in[0]->dtype)), ", ",
                                                     std::string(DataTypeName(in[i]->dtype)), ")"));
    }
    ASSIGN_OR_RETURN(shape, BroadcastShapes(shape, in[i]->shape));
  }
  if (kind_ == Kind::kPRelu && shape != in[0]->shape) {
    return absl::InvalidArgumentError(absl::StrCat("slope ", ShapeString(in[1]->shape),
                                                   " does not broadcast to X ",
                                                   ShapeString(in[0]->shape)));
  }
  const DataType dtype = in[0]->dtype;
  const bool is_float = IsFloatType(dtype);
  if (kind == Kind::kMod && is_float) {
    return absl::InvalidArgumentError("Mod of floating-point inputs needs fmod = 1");
  }
  if (IsBitwise(kind) && (is_float || dtype == DataType::kBool)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input 0 has type ", std::string(DataTypeName(dtype)), "; bitwise ops take integers"));
  }
  ctx.outputs[0].dtype = dtype;
  ctx.outputs[0].shape = shape;
  const int64_t n = NumElements(shape);
  bool foldable = n <= ctx.max_fold_elements && IsFoldableType(dtype) && dtype != DataType::kBool;
  for (const TensorDesc* t : in) foldable = foldable && t->value != nullptr;
  if (!foldable) return CheckGpuType(kind, dtype);
  ctx.outputs[0].value = Share(Fold(kind, in, shape));
  return absl::OkStatus();
}

absl::Status BinaryOp::CheckGpuType(Kind kind, DataType dtype) const {
  if (kind == Kind::kPow && !IsGpuInteger(dtype))
    return CheckDataType(dtype, {DataType::kFloat}, "input 0");
  if (arity_ == Arity::kMean)
    return CheckDataType(dtype, {DataType::kFloat, DataType::kFloat16}, "input 0");
  if (dtype == DataType::kFloat || IsGpuInteger(dtype)) return absl::OkStatus();
  if (dtype == DataType::kFloat16 && kind != Kind::kPRelu) return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat("input 0 has type ", std::string(DataTypeName(dtype)),
                   "; supported: float, float16 and the integer types"));
}

HostTensor BinaryOp::Fold(Kind kind, const std::vector<const TensorDesc*>& in,
                          const std::vector<int64_t>& shape) const {
  const DataType dtype = in[0]->dtype;
  const bool is_float = IsFloatType(dtype);
  const size_t count = in.size();
  HostTensor out = ZeroTensor(dtype, shape);
  std::vector<BroadcastIndex> index;
  for (const TensorDesc* t : in) index.emplace_back(t->shape, shape);
  const int64_t n = NumElements(shape);
  for (int64_t i = 0; i < n; ++i) {
    if (!is_float) {
      int64_t v = ElementAsInt(*in[0]->value, index[0](i));
      for (size_t k = 1; k < count; ++k)
        v = FoldInt(kind, v, ElementAsInt(*in[k]->value, index[k](i)));
      if (arity_ == Arity::kComplement) v = ~v;
      SetElementFromInt(&out, i, v);
    } else {
      double v = ElementAsDouble(*in[0]->value, index[0](i));
      for (size_t k = 1; k < count; ++k)
        v = FoldFloat(kind, v, ElementAsDouble(*in[k]->value, index[k](i)));
      if (arity_ == Arity::kMean) v /= static_cast<double>(count);
      SetElementFromDouble(&out, i, v);
    }
  }
  return out;
}

namespace {

// One dispatch of c = a (kind) b, `a` and `b` bound at `ref_a` and `ref_b`.
absl::StatusOr<DispatchStep> BinaryStep(KernelContext& ctx, BinaryOp::Kind kind,
                                        const TensorDesc& a, BufferRef ref_a, const TensorDesc& b,
                                        BufferRef ref_b, const TensorDesc& c) {
  const uint64_t n = static_cast<uint64_t>(c.num_elements());
  const BinaryLayout l = Simplify(c.shape, a.shape, b.shape);
  const uint64_t na = static_cast<uint64_t>(a.num_elements());
  const uint64_t nb = static_cast<uint64_t>(b.num_elements());
  BinaryMode mode = kGeneral;
  uint32_t inner = 1, channels = 1;
  auto vector_mode = [&](const std::vector<int64_t>& strides) {
    const int d = VectorDim(strides);
    if (d < 0) return false;
    channels = static_cast<uint32_t>(l.dims[d]);
    for (size_t k = static_cast<size_t>(d) + 1; k < l.dims.size(); ++k)
      inner *= static_cast<uint32_t>(l.dims[k]);
    return true;
  };
  if (na == n && nb == n) {
    mode = kSameShape;
  } else if (na == n && nb == 1) {
    mode = kScalarB;
  } else if (nb == n && na == 1) {
    mode = kScalarA;
  } else if (na == n && vector_mode(l.b)) {
    mode = kVectorB;
  } else if (nb == n && vector_mode(l.a)) {
    mode = kVectorA;
  } else if (l.dims.size() > kBinaryMaxRank) {
    return absl::UnimplementedError(absl::StrCat("broadcasting ", ShapeString(a.shape), " with ",
                                                 ShapeString(b.shape), " needs more than ",
                                                 kBinaryMaxRank, " dims"));
  }
  // The shader's whole block is always pushed; vector modes keep inner and
  // channels in dims[0..1].
  std::vector<int64_t> dims = l.dims;
  if (mode == kVectorA || mode == kVectorB) dims = {inner, channels};
  DispatchStep step;
  step.push.U32(static_cast<uint32_t>(n)).U32(static_cast<uint32_t>(dims.size()));
  for (size_t d = 0; d < kBinaryMaxRank; ++d)
    step.push.U32(d < dims.size() ? static_cast<uint32_t>(dims[d]) : 1);
  for (size_t d = 0; d < kBinaryMaxRank; ++d)
    step.push.U32(d < l.a.size() && mode == kGeneral ? static_cast<uint32_t>(l.a[d]) : 0);
  for (size_t d = 0; d < kBinaryMaxRank; ++d)
    step.push.U32(d < l.b.size() && mode == kGeneral ? static_cast<uint32_t>(l.b[d]) : 0);
  uint64_t invocations = n;
  if (a.dtype == DataType::kFloat || a.dtype == DataType::kFloat16) {
    // fp16: the build-time variant, one output word (two elements) per invocation.
    const bool half = a.dtype == DataType::kFloat16;
    if (half) invocations = (n + 1) / 2;
    ASSIGN_OR_RETURN(step.pipeline,
                     ctx.GetPipeline(half ? "ops/binary_f16" : "ops/binary", 3, step.push.size(),
                                     {kBinaryLocal, 1, 1}, {static_cast<uint32_t>(kind), mode}));
  } else {
    // Integers: 64-bit arithmetic in two 32-bit words; 1- and 2-byte types
    // one output word (4 or 2 elements) per invocation.
    const uint32_t elem = static_cast<uint32_t>(DataTypeSize(a.dtype));
    const uint32_t is_signed = !IsUnsigned(a.dtype);
    // Pow of an integer base with fp32 exponents (PowOp's mixed types).
    const uint32_t b_float = kind == BinaryOp::Kind::kPow && b.dtype == DataType::kFloat;
    if (elem < 4) invocations = (n * elem + 3) / 4;
    ASSIGN_OR_RETURN(
        step.pipeline,
        ctx.GetPipeline("ops/binary_int", 3, step.push.size(), {kBinaryLocal, 1, 1},
                        {static_cast<uint32_t>(kind), mode, elem, is_signed, b_float}));
  }
  step.bindings = {ref_a, ref_b, BufferRef::Output(0)};
  step.groups = GroupsFor(invocations, kBinaryLocal, ctx.device());
  return step;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Kernel>> BinaryOp::CreateKernel(KernelContext& ctx) const {
  const Kind kind = KindOf(ctx.node());
  const TensorDesc& c = ctx.output(0);
  const uint64_t n = static_cast<uint64_t>(c.num_elements());
  if (n >= (uint64_t{1} << 32)) {
    return absl::UnimplementedError(absl::StrCat("tensors of 2^32 or more elements (", n, ")"));
  }
  std::vector<DispatchStep> steps;
  if (n == 0) return std::make_unique<DispatchKernel>(std::move(steps));
  const BufferRef out_as_input{BufferRef::Source::kOutput, 0, gpu::Access::kRead};
  if (arity_ == Arity::kComplement) {
    TensorDesc ones;
    ones.dtype = c.dtype;
    ASSIGN_OR_RETURN(
        DispatchStep step,
        BinaryStep(ctx, kind, *ctx.input(0), BufferRef::Input(0), ones,
                   BufferRef::Constant(ctx.AddConstant(std::vector<uint8_t>(8, 0xFF))), c));
    return MakeDispatchKernel(std::move(step));
  }
  const size_t count = arity_ == Arity::kBinary ? 2 : ctx.num_inputs();
  if (count == 1) {  // Sum/Max/... of one input: a copy
    return CreateStridedCopyKernel(ctx, c.dtype, {ContiguousCopy(static_cast<int64_t>(n))});
  }
  // Fold left to right, the running result in the output (read and written
  // element by element by the same invocation).
  for (size_t k = 1; k < count; ++k) {
    const TensorDesc& a = k == 1 ? *ctx.input(0) : c;
    ASSIGN_OR_RETURN(DispatchStep step,
                     BinaryStep(ctx, kind, a, k == 1 ? BufferRef::Input(0) : out_as_input,
                                *ctx.input(k), BufferRef::Input(static_cast<uint32_t>(k)), c));
    steps.push_back(std::move(step));
  }
  if (arity_ == Arity::kMean) {
    HostTensor scale = ZeroTensor(c.dtype, {});
    SetElementFromDouble(&scale, 0, 1.0 / static_cast<double>(count));
    std::vector<uint8_t> bytes = scale.data.ToVector();
    bytes.resize(4, 0);  // a whole word
    TensorDesc scalar;
    scalar.dtype = c.dtype;
    ASSIGN_OR_RETURN(DispatchStep step,
                     BinaryStep(ctx, Kind::kMul, c, out_as_input, scalar,
                                BufferRef::Constant(ctx.AddConstant(std::move(bytes))), c));
    steps.push_back(std::move(step));
  }
  return std::make_unique<DispatchKernel>(std::move(steps));
}

}  // namespace vkserve
