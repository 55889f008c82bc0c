// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Equal (opsets 1-25): elementwise A == B with numpy broadcasting, as bool.
// Real models mostly use it in shape subgraphs (e.g. `shape == -1` before
// Where), where it is folded on the host; otherwise shaders/ops/equal.comp
// compares integers and bools as bits and float/float16 as numbers.
#include "absl/strings/str_cat.h"
#include "runtime/op_registry.h"
#include "runtime/op_util.h"
#include "runtime/ops/host_fold.h"
#include "runtime/ops/strided_copy.h"

namespace vkserve {
namespace {

constexpr uint32_t kLocalSize = 256;
constexpr size_t kMaxEqualRank = 7;

struct EqualParams {
  uint32_t count;
  uint32_t rank;
  uint32_t shape[kMaxEqualRank];
  int32_t a_stride[kMaxEqualRank];
  int32_t b_stride[kMaxEqualRank];
};
static_assert(sizeof(EqualParams) <= 128, "push constants are limited to 128 bytes");

class EqualKernel : public Kernel {
 public:
  EqualKernel(std::shared_ptr<const gpu::Pipeline> pipeline, EqualParams params,
              std::array<uint32_t, 3> groups)
      : pipeline_(std::move(pipeline)), params_(params), groups_(groups) {}

  absl::Status Record(const RecordContext& ctx) const override {
    if (params_.count == 0) return absl::OkStatus();
    const gpu::Binding bindings[] = {
        {WordRange(ctx.inputs[0]), gpu::Access::kRead},
        {WordRange(ctx.inputs[1]), gpu::Access::kRead},
        {WordRange(ctx.outputs[0]), gpu::Access::kWrite},
    };
    const auto* bytes = reinterpret_cast<const uint8_t*>(&params_);
    return ctx.command_buffer.Dispatch(pipeline_, bindings, std::span(bytes, sizeof(params_)),
                                       groups_, ctx.label);
  }

 private:
  std::shared_ptr<const gpu::Pipeline> pipeline_;
  EqualParams params_;
  std::array<uint32_t, 3> groups_;
};

class EqualOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override {
    if (node.opset < 7 && node.GetInt("broadcast", 0) != 0 && node.FindAttribute("axis") != nullptr) {
      return absl::UnimplementedError("legacy broadcasting with 'axis' is not supported");
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* a, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(const TensorDesc* b, RequireInput(ctx, 1));
    if (a->dtype != b->dtype) {
      return absl::InvalidArgumentError(
          absl::StrCat("A (", a->ToString(), ") and B (", b->ToString(), ") differ in type"));
    }
    if (!IsFoldableType(a->dtype)) {
      return absl::UnimplementedError(
          absl::StrCat("Equal on ", std::string(DataTypeName(a->dtype)), " is not supported"));
    }
    TensorDesc& out = ctx.outputs[0];
    out.dtype = DataType::kBool;
    ASSIGN_OR_RETURN(out.shape, BroadcastShapes(a->shape, b->shape));
    if (!ShouldFold(ctx, out.num_elements())) return absl::OkStatus();
    HostTensor t = ZeroTensor(DataType::kBool, out.shape);
    const BroadcastIndex ai(a->shape, out.shape), bi(b->shape, out.shape);
    const bool floats = IsFloatType(a->dtype);
    for (int64_t i = 0; i < out.num_elements(); ++i) {
      const bool eq = floats ? ElementAsDouble(*a->value, ai(i)) == ElementAsDouble(*b->value, bi(i))
                             : ElementAsInt(*a->value, ai(i)) == ElementAsInt(*b->value, bi(i));
      t.data[i] = eq ? 1 : 0;
    }
    out.value = Share(std::move(t));
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& a = *ctx.input(0);
    const TensorDesc& b = *ctx.input(1);
    uint32_t float_kind = 0;
    if (a.dtype == DataType::kFloat) {
      float_kind = 1;
    } else if (a.dtype == DataType::kFloat16) {
      float_kind = 2;
    } else if (IsFloatType(a.dtype)) {
      return absl::UnimplementedError(absl::StrCat(
          "Equal on ", std::string(DataTypeName(a.dtype)), " is not supported on the GPU"));
    }
    RETURN_IF_ERROR(CheckMovableType(a.dtype));
    ASSIGN_OR_RETURN(std::vector<int64_t> shape, BroadcastShapes(a.shape, b.shape));
    const int64_t count = NumElements(shape);
    std::vector<int64_t> as = BroadcastStrides(a.shape, shape);
    std::vector<int64_t> bs = BroadcastStrides(b.shape, shape);
    SimplifyStrides(&shape, {&as, &bs});
    if (shape.size() > kMaxEqualRank) {
      return absl::UnimplementedError(absl::StrCat("Equal broadcasting over ", shape.size(),
                                                   " dims (after merging) exceeds ", kMaxEqualRank));
    }
    if (count > INT32_MAX) return absl::UnimplementedError("Equal: tensor too large");
    EqualParams p{};
    p.count = static_cast<uint32_t>(count);
    p.rank = static_cast<uint32_t>(shape.size());
    for (size_t k = 0; k < shape.size(); ++k) {
      p.shape[k] = static_cast<uint32_t>(shape[k]);
      p.a_stride[k] = static_cast<int32_t>(as[k]);
      p.b_stride[k] = static_cast<int32_t>(bs[k]);
    }
    const uint32_t elem = static_cast<uint32_t>(DataTypeSize(a.dtype));
    ASSIGN_OR_RETURN(auto pipeline, ctx.GetPipeline("ops/equal", 3, sizeof(EqualParams),
                                                    {kLocalSize, 1, 1}, {elem, float_kind}));
    const uint64_t words = (static_cast<uint64_t>(count) + 3) / 4;
    return std::make_unique<EqualKernel>(std::move(pipeline), p,
                                         GroupsFor(words, kLocalSize, ctx.device()));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Equal", 1, 25, EqualOp);

}  // namespace vkserve
