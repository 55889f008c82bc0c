// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/binary_op.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "runtime/op_util.h"
#include "runtime/ops/dispatch_kernel.h"
#include "runtime/ops/host_fold.h"

namespace vkserve {
namespace {

constexpr uint32_t kLocal = 256;
constexpr size_t kMaxRank = 6;  // binary.comp's general mode

enum Mode : uint32_t {
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
struct Layout {
  std::vector<int64_t> dims, a, b;
};

Layout Simplify(const std::vector<int64_t>& out, const std::vector<int64_t>& a_shape,
                const std::vector<int64_t>& b_shape) {
  const std::vector<int64_t> sa = BroadcastStrides(a_shape, out.size());
  const std::vector<int64_t> sb = BroadcastStrides(b_shape, out.size());
  Layout l;
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
    case BinaryOp::Kind::kAdd: return x + y;
    case BinaryOp::Kind::kSub: return x - y;
    case BinaryOp::Kind::kMul: return x * y;
    // C++ division truncates toward zero, as onnxruntime's does.
    case BinaryOp::Kind::kDiv: return y == 0 ? 0 : x / y;
    case BinaryOp::Kind::kPRelu: return x < 0 ? x * y : x;
    case BinaryOp::Kind::kPow: {
      if (y < 0) return x == 1 ? 1 : (x == -1 ? (y % 2 == 0 ? 1 : -1) : 0);
      int64_t r = 1;
      for (int64_t k = 0; k < y && k < 64; ++k) r *= x;
      return r;
    }
  }
  return 0;
}

double FoldFloat(BinaryOp::Kind kind, double x, double y) {
  switch (kind) {
    case BinaryOp::Kind::kAdd: return x + y;
    case BinaryOp::Kind::kSub: return x - y;
    case BinaryOp::Kind::kMul: return x * y;
    case BinaryOp::Kind::kDiv: return x / y;
    case BinaryOp::Kind::kPRelu: return x < 0 ? x * y : x;
    case BinaryOp::Kind::kPow: return std::pow(x, y);
  }
  return 0;
}

}  // namespace

absl::Status BinaryOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* a, RequireInput(ctx, 0));
  ASSIGN_OR_RETURN(const TensorDesc* b, RequireInput(ctx, 1));
  if (a->dtype != b->dtype) {
    return absl::InvalidArgumentError(absl::StrCat("inputs have different types (",
                                                   std::string(DataTypeName(a->dtype)), ", ",
                                                   std::string(DataTypeName(b->dtype)), ")"));
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> shape, BroadcastShapes(a->shape, b->shape));
  if (kind_ == Kind::kPRelu && shape != a->shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        "slope ", ShapeString(b->shape), " does not broadcast to X ", ShapeString(a->shape)));
  }
  ctx.outputs[0].dtype = a->dtype;
  ctx.outputs[0].shape = shape;
  const int64_t n = NumElements(shape);
  if (a->value == nullptr || b->value == nullptr || n > ctx.max_fold_elements ||
      !IsFoldableType(a->dtype) || a->dtype == DataType::kBool) {
    if (kind_ == Kind::kPow) return CheckDataType(a->dtype, {DataType::kFloat}, "input 0");
    return CheckDataType(a->dtype, {DataType::kFloat, DataType::kInt32, DataType::kInt64,
                                    DataType::kUint32, DataType::kUint64},
                         "input 0");
  }
  // Host folding (shape arithmetic): integers exactly in int64.
  HostTensor out = ZeroTensor(a->dtype, shape);
  const BroadcastIndex index_a(a->shape, shape);
  const BroadcastIndex index_b(b->shape, shape);
  const bool integer = !IsFloatType(a->dtype);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t ia = index_a(i), ib = index_b(i);
    if (integer) {
      SetElementFromInt(&out, i, FoldInt(kind_, ElementAsInt(*a->value, ia), ElementAsInt(*b->value, ib)));
    } else {
      SetElementFromDouble(&out, i, FoldFloat(kind_, ElementAsDouble(*a->value, ia),
                                              ElementAsDouble(*b->value, ib)));
    }
  }
  ctx.outputs[0].value = Share(std::move(out));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> BinaryOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& a = *ctx.input(0);
  const TensorDesc& b = *ctx.input(1);
  const TensorDesc& c = ctx.output(0);
  const uint64_t n = static_cast<uint64_t>(c.num_elements());
  if (n >= (uint64_t{1} << 32)) {
    return absl::UnimplementedError(absl::StrCat("tensors of 2^32 or more elements (", n, ")"));
  }
  if (n == 0) return std::make_unique<DispatchKernel>(std::vector<DispatchStep>{});
  const Layout l = Simplify(c.shape, a.shape, b.shape);
  const uint64_t na = static_cast<uint64_t>(a.num_elements());
  const uint64_t nb = static_cast<uint64_t>(b.num_elements());
  Mode mode = kGeneral;
  uint32_t inner = 1, channels = 1;
  auto vector_mode = [&](const std::vector<int64_t>& strides) {
    const int d = VectorDim(strides);
    if (d < 0) return false;
    channels = static_cast<uint32_t>(l.dims[d]);
    for (size_t k = static_cast<size_t>(d) + 1; k < l.dims.size(); ++k) inner *= static_cast<uint32_t>(l.dims[k]);
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
  } else if (l.dims.size() > kMaxRank) {
    return absl::UnimplementedError(absl::StrCat("broadcasting ", ShapeString(a.shape), " with ",
                                                 ShapeString(b.shape), " needs more than ",
                                                 kMaxRank, " dims"));
  }
  // The shader's whole block is always pushed; vector modes keep inner and
  // channels in dims[0..1].
  std::vector<int64_t> dims = l.dims;
  if (mode == kVectorA || mode == kVectorB) dims = {inner, channels};
  DispatchStep step;
  step.push.U32(static_cast<uint32_t>(n)).U32(static_cast<uint32_t>(dims.size()));
  for (size_t d = 0; d < kMaxRank; ++d) step.push.U32(d < dims.size() ? static_cast<uint32_t>(dims[d]) : 1);
  for (size_t d = 0; d < kMaxRank; ++d) step.push.U32(d < l.a.size() && mode == kGeneral ? static_cast<uint32_t>(l.a[d]) : 0);
  for (size_t d = 0; d < kMaxRank; ++d) step.push.U32(d < l.b.size() && mode == kGeneral ? static_cast<uint32_t>(l.b[d]) : 0);
  if (a.dtype == DataType::kFloat) {
    ASSIGN_OR_RETURN(step.pipeline, ctx.GetPipeline("ops/binary", 3, step.push.size(), {kLocal, 1, 1},
                                                    {static_cast<uint32_t>(kind_), mode}));
  } else {
    // Integers of any count: 64-bit arithmetic in two 32-bit words.
    const uint32_t elem = static_cast<uint32_t>(DataTypeSize(a.dtype));
    const uint32_t is_signed = a.dtype == DataType::kInt32 || a.dtype == DataType::kInt64;
    ASSIGN_OR_RETURN(step.pipeline,
                     ctx.GetPipeline("ops/binary_int", 3, step.push.size(), {kLocal, 1, 1},
                                     {static_cast<uint32_t>(kind_), mode, elem, is_signed}));
  }
  step.bindings = {BufferRef::Input(0), BufferRef::Input(1), BufferRef::Output(0)};
  step.groups = GroupsFor(n, kLocal, ctx.device());
  return MakeDispatchKernel(std::move(step));
}

}  // namespace vkserve
