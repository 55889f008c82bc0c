// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Pow (opsets 7-27) with numpy broadcasting (runtime/ops/math/binary_op.h), with
// C's pow semantics: a negative base takes integer exponents. GPT-2's
// tanh-GELU computes x^3 with it. A float base may take an exponent of
// another numeric type (ONNX's T1; exporters write int64 powers): the
// exponent becomes fp32 — on the host at plan time when it is known (the
// usual initializer), else by a ops/cast dispatch into scratch before the
// binary one — and the fp32 kernel runs unchanged. An integer base takes an
// integer exponent of its own type or fp32 exponents on the GPU
// (shaders/ops/binary_int.comp: exact integer powers, else C's pow
// truncated); other mixed types only fold on the host.
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"
#include "runtime/ops/math/binary_op.h"

namespace vkserve {
namespace {

constexpr uint32_t kCastLocal = 256;

// Exponent types shaders/ops/cast.comp converts to fp32.
bool IsGpuConvertible(DataType t) {
  switch (t) {
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kUint8:
    case DataType::kUint16:
    case DataType::kUint32:
    case DataType::kUint64:
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return true;
    default:
      return false;
  }
}

// Bases shaders/ops/binary_int.comp raises to fp32 exponents.
bool IsGpuIntegerBase(DataType t) {
  return t != DataType::kFloat16 && t != DataType::kBFloat16 && IsGpuConvertible(t);
}

std::string TypeName(DataType t) { return std::string(DataTypeName(t)); }

// `b` as an fp32 tensor of the same shape, its value converted when known.
absl::StatusOr<TensorDesc> AsFloat(const TensorDesc& b) {
  TensorDesc f;
  f.dtype = DataType::kFloat;
  f.shape = b.shape;
  if (b.value != nullptr) {
    ASSIGN_OR_RETURN(HostTensor t, ConvertTensor(*b.value, DataType::kFloat));
    f.value = Share(std::move(t));
  }
  return f;
}

// BinaryOp's view of the node: input 1 is the fp32 exponent. Everything
// else, the plan's scratch and constants included, is the real context's.
class FloatExponentContext : public ForwardingKernelContext {
 public:
  FloatExponentContext(KernelContext& base, const TensorDesc* exponent)
      : ForwardingKernelContext(base), exponent_(exponent) {}

  const TensorDesc* input(size_t i) const override { return i == 1 ? exponent_ : base().input(i); }

 private:
  const TensorDesc* exponent_;
};

// Runs the fp32 Pow kernel with input 1 replaced by the fp32 exponent: plan
// constant `index`, or scratch `index` that the cast fills first (`cast`
// set). The binary dispatch reads what the cast wrote; the command buffer
// puts the barrier between them.
class ConvertedExponentKernel : public Kernel {
 public:
  ConvertedExponentKernel(std::unique_ptr<Kernel> pow, uint32_t index,
                          std::shared_ptr<const gpu::Pipeline> cast, uint32_t count,
                          std::array<uint32_t, 3> groups)
      : pow_(std::move(pow)),
        index_(index),
        cast_(std::move(cast)),
        count_(count),
        groups_(groups) {}

  absl::Status Record(const RecordContext& ctx) const override {
    gpu::BufferRange exponent;
    if (cast_ == nullptr) {
      exponent = ctx.constants[index_];
    } else {
      exponent = ctx.scratch[index_];
      const gpu::Binding bindings[] = {
          {WordRange(ctx.inputs[1]), gpu::Access::kRead},
          {exponent, gpu::Access::kReadWrite},
      };
      const auto* bytes = reinterpret_cast<const uint8_t*>(&count_);
      RETURN_IF_ERROR(ctx.command_buffer.Dispatch(cast_, bindings, std::span(bytes, sizeof(count_)),
                                                  groups_, ctx.label));
    }
    RecordContext inner{ctx.command_buffer, ctx.inputs,    ctx.outputs,
                        ctx.scratch,        ctx.constants, ctx.label};
    inner.inputs[1] = exponent;
    return pow_->Record(inner);
  }

 private:
  std::unique_ptr<Kernel> pow_;
  uint32_t index_;
  std::shared_ptr<const gpu::Pipeline> cast_;
  uint32_t count_;
  std::array<uint32_t, 3> groups_;
};

// C's pow on the host, stored in `out`'s type (integers truncate, as
// onnxruntime's static_cast of std::pow does; out of range saturates).
void StorePow(HostTensor* out, int64_t i, double x, double y) {
  const double r = std::pow(x, y);
  if (IsFloatType(out->dtype)) {
    SetElementFromDouble(out, i, r);
    return;
  }
  constexpr double kLimit = 9.2e18;  // inside int64's range
  SetElementFromInt(
      out, i, std::isnan(r) ? 0 : static_cast<int64_t>(std::fmax(-kLimit, std::fmin(kLimit, r))));
}

class PowOp : public BinaryOp {
 public:
  PowOp() : BinaryOp(Kind::kPow) {}

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* a, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* b, RequireInput(ctx, 1));
    if (a->dtype == b->dtype) return BinaryOp::Infer(ctx);
    if (!IsFoldableType(b->dtype) || b->dtype == DataType::kBool) {
      return absl::InvalidArgumentError(absl::StrCat("exponent of type ", TypeName(b->dtype)));
    }
    if (a->dtype == DataType::kFloat) {
      ASSIGN_OR_RETURN(const TensorDesc fb, AsFloat(*b));
      InferContext sub{ctx.node, {a, &fb}, std::vector<TensorDesc>(1), ctx.max_fold_elements};
      RETURN_IF_ERROR(BinaryOp::Infer(sub));
      const bool folded = sub.outputs[0].value != nullptr;
      if (!folded && b->value == nullptr && !IsGpuConvertible(b->dtype)) {
        return absl::UnimplementedError(
            absl::StrCat("Pow with a ", TypeName(b->dtype), " exponent computed at run time"));
      }
      ctx.outputs[0] = std::move(sub.outputs[0]);
      return absl::OkStatus();
    }
    // Any other base with a different exponent type: shape arithmetic only.
    ASSIGN_OR_RETURN(std::vector<int64_t> shape, BroadcastShapes(a->shape, b->shape));
    ctx.outputs[0].dtype = a->dtype;
    ctx.outputs[0].shape = shape;
    const int64_t n = NumElements(shape);
    const bool foldable = ShouldFold(ctx, n);
    if (!foldable && IsGpuIntegerBase(a->dtype) && b->dtype == DataType::kFloat) {
      return absl::OkStatus();  // binary_int.comp with B_FLOAT
    }
    if (!IsFoldableType(a->dtype) || a->dtype == DataType::kBool || !foldable) {
      return absl::UnimplementedError(absl::StrCat(
          "Pow of a ", TypeName(a->dtype), " base with a ", TypeName(b->dtype),
          " exponent on the GPU (an integer base takes its own type or float exponents)"));
    }
    HostTensor out = ZeroTensor(a->dtype, shape);
    const BroadcastIndex ia(a->shape, shape), ib(b->shape, shape);
    for (int64_t i = 0; i < n; ++i) {
      StorePow(&out, i, ElementAsDouble(*a->value, ia(i)), ElementAsDouble(*b->value, ib(i)));
    }
    ctx.outputs[0].value = Share(std::move(out));
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& b = *ctx.input(1);
    if (b.dtype == ctx.input(0)->dtype) return BinaryOp::CreateKernel(ctx);
    if (ctx.input(0)->dtype != DataType::kFloat) return BinaryOp::CreateKernel(ctx);  // B_FLOAT
    // A float base (Infer refused the rest unless folded).
    ASSIGN_OR_RETURN(const TensorDesc fb, AsFloat(b));
    FloatExponentContext float_ctx(ctx, &fb);
    ASSIGN_OR_RETURN(std::unique_ptr<Kernel> pow, BinaryOp::CreateKernel(float_ctx));
    const int64_t count = b.num_elements();
    if (ctx.output(0).num_elements() == 0) return pow;  // records nothing
    if (fb.value != nullptr) {
      const uint32_t index = ctx.AddConstant(fb.value->data.ToVector());
      return std::make_unique<ConvertedExponentKernel>(std::move(pow), index, nullptr, 0,
                                                       std::array<uint32_t, 3>{});
    }
    if (count > std::numeric_limits<uint32_t>::max()) {
      return absl::UnimplementedError("Pow: exponent too large");
    }
    ASSIGN_OR_RETURN(auto cast, ctx.GetPipeline("ops/cast", 2, sizeof(uint32_t), {kCastLocal, 1, 1},
                                                {static_cast<uint32_t>(b.dtype),
                                                 static_cast<uint32_t>(DataType::kFloat)}));
    const uint32_t scratch = ctx.RequestScratch(static_cast<uint64_t>(count) * sizeof(float));
    return std::make_unique<ConvertedExponentKernel>(
        std::move(pow), scratch, std::move(cast), static_cast<uint32_t>(count),
        GroupsFor(static_cast<uint64_t>(count), kCastLocal, ctx.device()));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Pow", 7, 27, PowOp);

}  // namespace vkserve
