// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/binary_op.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "runtime/op_util.h"
#include "runtime/ops/host_fold.h"

namespace vkserve {
namespace {

constexpr uint32_t kLocal = 256;
constexpr size_t kMaxRank = 6;

// Strides of `shape` (right-aligned to `rank`) with 0 for broadcast dims.
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& shape, size_t rank) {
  std::vector<int64_t> strides(rank, 0);
  const std::vector<int64_t> own = Strides(shape);
  const size_t offset = rank - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) strides[offset + d] = shape[d] == 1 ? 0 : own[d];
  return strides;
}

class BinaryKernel : public Kernel {
 public:
  BinaryKernel(std::shared_ptr<const gpu::Pipeline> pipeline, PushConstants push,
               std::array<uint32_t, 3> groups)
      : pipeline_(std::move(pipeline)), push_(std::move(push)), groups_(groups) {}
  absl::Status Record(const RecordContext& ctx) const override {
    const gpu::Binding bindings[] = {{ctx.inputs[0], gpu::Access::kRead},
                                     {ctx.inputs[1], gpu::Access::kRead},
                                     {ctx.outputs[0], gpu::Access::kWrite}};
    return ctx.command_buffer.Dispatch(pipeline_, bindings, push_.bytes(), groups_, ctx.label);
  }

 private:
  std::shared_ptr<const gpu::Pipeline> pipeline_;
  PushConstants push_;
  std::array<uint32_t, 3> groups_;
};

double Apply(BinaryOp::Kind kind, double a, double b, bool integer) {
  switch (kind) {
    case BinaryOp::Kind::kAdd: return a + b;
    case BinaryOp::Kind::kSub: return a - b;
    case BinaryOp::Kind::kMul: return a * b;
    case BinaryOp::Kind::kDiv:
      // Integer division truncates toward zero, as ONNX Runtime's does.
      if (integer) return b == 0 ? 0 : std::trunc(a / b);
      return a / b;
    case BinaryOp::Kind::kPRelu: return a < 0 ? a * b : a;
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
    return absl::InvalidArgumentError(absl::StrCat("slope ", ShapeString(b->shape),
                                                   " does not broadcast to X ", ShapeString(a->shape)));
  }
  ctx.outputs[0].dtype = a->dtype;
  ctx.outputs[0].shape = shape;
  const int64_t n = NumElements(shape);
  if (a->value != nullptr && b->value != nullptr && n <= kMaxFoldElements && IsFoldableType(a->dtype)) {
    const bool integer = !IsFloatType(a->dtype);
    HostTensor out = ZeroTensor(a->dtype, shape);
    const auto sa = BroadcastStrides(a->shape, shape.size());
    const auto sb = BroadcastStrides(b->shape, shape.size());
    for (int64_t i = 0; i < n; ++i) {
      int64_t rest = i, ia = 0, ib = 0;
      for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
        const int64_t c = rest % shape[d];
        rest /= shape[d];
        ia += c * sa[d];
        ib += c * sb[d];
      }
      if (integer) {
        const int64_t x = ElementAsInt(*a->value, ia), y = ElementAsInt(*b->value, ib);
        int64_t r = 0;
        switch (kind_) {
          case Kind::kAdd: r = x + y; break;
          case Kind::kSub: r = x - y; break;
          case Kind::kMul: r = x * y; break;
          case Kind::kDiv: r = y == 0 ? 0 : x / y; break;
          case Kind::kPRelu: r = x < 0 ? x * y : x; break;
        }
        SetElementFromInt(&out, i, r);
      } else {
        SetElementFromDouble(&out, i, Apply(kind_, ElementAsDouble(*a->value, ia),
                                            ElementAsDouble(*b->value, ib), false));
      }
    }
    ctx.outputs[0].value = Share(std::move(out));
    return absl::OkStatus();
  }
  return CheckDataType(a->dtype, {DataType::kFloat}, "input 0");
}

absl::StatusOr<std::unique_ptr<Kernel>> BinaryOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& a = *ctx.input(0);
  const TensorDesc& b = *ctx.input(1);
  const TensorDesc& c = ctx.output(0);
  const uint64_t n = static_cast<uint64_t>(c.num_elements());
  if (n >= (uint64_t{1} << 32)) return absl::UnimplementedError("tensor too large");
  uint32_t mode = 0;
  if (a.shape == b.shape) {
    mode = 1;
  } else if (b.num_elements() == 1) {
    mode = 2;
  } else if (a.num_elements() == 1) {
    mode = 3;
  }
  // Drop leading dims beyond the shader's rank by merging: only general mode
  // needs the shape, and it must fit in kMaxRank dims.
  std::vector<int64_t> dims = c.shape;
  std::vector<int64_t> sa = BroadcastStrides(a.shape, dims.size());
  std::vector<int64_t> sb = BroadcastStrides(b.shape, dims.size());
  // Merge adjacent dims that broadcast the same way, to fit kMaxRank.
  for (size_t d = 1; d < dims.size();) {
    const bool a_merge = sa[d - 1] == sa[d] * dims[d] || (sa[d - 1] == 0 && sa[d] == 0);
    const bool b_merge = sb[d - 1] == sb[d] * dims[d] || (sb[d - 1] == 0 && sb[d] == 0);
    if (a_merge && b_merge) {
      dims[d - 1] *= dims[d];
      sa[d - 1] = sa[d];
      sb[d - 1] = sb[d];
      dims.erase(dims.begin() + static_cast<long>(d));
      sa.erase(sa.begin() + static_cast<long>(d));
      sb.erase(sb.begin() + static_cast<long>(d));
    } else {
      ++d;
    }
  }
  if (mode == 0 && dims.size() > kMaxRank) {
    return absl::UnimplementedError(absl::StrCat("broadcast over more than ", kMaxRank, " dims"));
  }
  PushConstants push;
  push.U32(static_cast<uint32_t>(n)).U32(static_cast<uint32_t>(dims.size()));
  for (size_t d = 0; d < kMaxRank; ++d) push.U32(d < dims.size() ? static_cast<uint32_t>(dims[d]) : 1);
  for (size_t d = 0; d < kMaxRank; ++d) push.U32(d < sa.size() ? static_cast<uint32_t>(sa[d]) : 0);
  for (size_t d = 0; d < kMaxRank; ++d) push.U32(d < sb.size() ? static_cast<uint32_t>(sb[d]) : 0);
  ASSIGN_OR_RETURN(auto pipeline, ctx.GetPipeline("ops/binary", 3, push.size(), {kLocal, 1, 1},
                                                  {static_cast<uint32_t>(kind_), mode}));
  return std::make_unique<BinaryKernel>(std::move(pipeline), std::move(push),
                                        GroupsFor(n, kLocal, ctx.device()));
}

}  // namespace vkserve
