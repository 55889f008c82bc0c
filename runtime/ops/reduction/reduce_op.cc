// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
#include "runtime/ops/reduction/reduce_op.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_util.h"
#include "runtime/ops/reduction/reduction_layout.h"

namespace vkserve {
namespace {

constexpr uint32_t kGroupLocal = 64;    // one workgroup per output
constexpr uint32_t kThreadLocal = 256;  // one invocation per output

struct ReduceReduction {
  std::vector<bool> reduced;  // per input dim
  std::vector<int64_t> out_shape;
  // noop_with_empty_axes with no axes: every element reduced alone (so
  // ReduceSumSquare still squares, as the ONNX reference and onnxruntime).
  bool noop = false;
};

absl::StatusOr<ReduceReduction> ReduceResolve(const Node& node, const std::vector<int64_t>& shape,
                                              const TensorDesc* axes_input,
                                              int64_t axes_input_opset) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> axes;
  if (node.opset >= axes_input_opset) {
    if (axes_input != nullptr) {
      if (axes_input->value == nullptr) {
        return absl::UnimplementedError(
            absl::StrCat(node.op_type,
                         "'s axes must be known at load time (a constant); vkserve never reads "
                         "tensor data back in the middle of a run"));
      }
      ASSIGN_OR_RETURN(axes, HostInts(*axes_input->value, "axes"));
    }
  } else {
    axes = node.GetInts("axes");
  }
  ReduceReduction r;
  if (axes.empty() && node.opset >= axes_input_opset &&
      node.GetInt("noop_with_empty_axes", 0) != 0) {
    r.noop = true;
    r.reduced.assign(rank, false);
    r.out_shape = shape;
    return r;
  }
  r.reduced.assign(rank, axes.empty());
  ASSIGN_OR_RETURN(const std::vector<int64_t> normalized, NormalizeAxes(axes, rank));
  for (int64_t axis : normalized) r.reduced[axis] = true;
  const bool keep = node.GetInt("keepdims", 1) != 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (!r.reduced[d]) {
      r.out_shape.push_back(shape[d]);
    } else if (keep) {
      r.out_shape.push_back(1);
    }
  }
  return r;
}

double Identity(ReduceOp::Kind kind) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (kind == ReduceOp::Kind::kMax) return -kInf;
  if (kind == ReduceOp::Kind::kMin) return kInf;
  return kind == ReduceOp::Kind::kProd ? 1.0 : 0.0;
}

double Accumulate(ReduceOp::Kind kind, double acc, double v) {
  switch (kind) {
    case ReduceOp::Kind::kMax:
      return std::max(acc, v);
    case ReduceOp::Kind::kMin:
      return std::min(acc, v);
    case ReduceOp::Kind::kProd:
      return acc * v;
    case ReduceOp::Kind::kL1:
      return acc + std::fabs(v);
    case ReduceOp::Kind::kL2:
    case ReduceOp::Kind::kSumSquare:
      return acc + v * v;
    case ReduceOp::Kind::kLogSumExp:
      return acc + std::exp(v);
    default:
      return acc + v;
  }
}

double Finish(ReduceOp::Kind kind, double acc, int64_t count) {
  switch (kind) {
    case ReduceOp::Kind::kMean:
      return acc / static_cast<double>(count);
    case ReduceOp::Kind::kL2:
      return std::sqrt(acc);
    case ReduceOp::Kind::kLogSum:
    case ReduceOp::Kind::kLogSumExp:
      return std::log(acc);
    default:
      return acc;
  }
}

// The reduction on the host, in double (integers round-trip exactly up to
// 2^53, far beyond shape arithmetic).
HostTensor ReduceFold(const HostTensor& x, const ReduceReduction& r, ReduceOp::Kind kind) {
  HostTensor out = ZeroTensor(x.dtype, r.out_shape);
  const int64_t n_out = out.num_elements();
  std::vector<double> accs(static_cast<size_t>(n_out), Identity(kind));
  std::vector<int64_t> counts(static_cast<size_t>(n_out), 0);
  std::vector<int64_t> coord(x.shape.size());
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    int64_t rest = i;
    for (size_t d = x.shape.size(); d-- > 0;) {
      coord[d] = rest % x.shape[d];
      rest /= x.shape[d];
    }
    int64_t o = 0;
    for (size_t d = 0; d < x.shape.size(); ++d) {
      if (!r.reduced[d]) o = o * x.shape[d] + coord[d];
    }
    accs[o] = Accumulate(kind, accs[o], ElementAsDouble(x, i));
    ++counts[o];
  }
  for (int64_t o = 0; o < n_out; ++o) {
    SetElementFromDouble(&out, o, Finish(kind, accs[o], counts[o]));
  }
  return out;
}

}  // namespace

bool ReduceOp::IsHostInput(const Node& node, size_t input_index) const {
  return node.opset >= axes_input_opset_ && input_index == 1;
}

absl::Status ReduceOp::Validate(const Node& node) const {
  RETURN_IF_ERROR(CheckAttributeType(node, "axes", Attribute::Type::kInts));
  RETURN_IF_ERROR(CheckAttributeType(node, "noop_with_empty_axes", Attribute::Type::kInt));
  return CheckAttributeType(node, "keepdims", Attribute::Type::kInt);
}

absl::Status ReduceOp::Infer(InferContext& ctx) const {
  ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
  ASSIGN_OR_RETURN(const ReduceReduction r,
                   ReduceResolve(ctx.node, x->shape, ctx.input(1), axes_input_opset_));
  ctx.outputs[0].dtype = x->dtype;
  ctx.outputs[0].shape = r.out_shape;
  if (x->value != nullptr && IsFoldableType(x->dtype) && x->dtype != DataType::kBool &&
      x->num_elements() <= ctx.max_fold_elements && x->num_elements() > 0) {
    ctx.outputs[0].value = Share(ReduceFold(*x->value, r, kind_));
    return absl::OkStatus();
  }
  return CheckDataType(x->dtype, {DataType::kFloat}, "input 0");
}

absl::StatusOr<std::unique_ptr<Kernel>> ReduceOp::CreateKernel(KernelContext& ctx) const {
  const TensorDesc& x = *ctx.input(0);
  ASSIGN_OR_RETURN(const ReduceReduction r,
                   ReduceResolve(ctx.node(), x.shape, ctx.input(1), axes_input_opset_));
  if (x.num_elements() >= (int64_t{1} << 32)) {
    return absl::UnimplementedError(
        absl::StrCat("tensors of 2^32 or more elements (", x.num_elements(), ")"));
  }
  if (ctx.output(0).num_elements() == 0) return MakeEmptyKernel();
  if (x.num_elements() == 0) {
    // Every output reduces nothing: the identity, finished (0 for the sums,
    // 1 for the product, -inf for max and the log-sums, +inf for min, NaN
    // for the mean), copied from a constant.
    const float value = static_cast<float>(Finish(kind_, Identity(kind_), 0));
    std::vector<uint8_t> bytes(sizeof(value));
    std::memcpy(bytes.data(), &value, sizeof(value));
    StridedCopy fill;
    fill.source = StridedCopy::Source::kConstant;
    fill.src_index = static_cast<int>(ctx.AddConstant(std::move(bytes)));
    fill.shape = {ctx.output(0).num_elements()};
    fill.src_strides = {0};
    fill.dst_strides = {1};
    return CreateStridedCopyKernel(ctx, DataType::kFloat, {std::move(fill)});
  }
  ASSIGN_OR_RETURN(const ReductionLayout l, MergeReductionDims(x.shape, r.reduced, "reducing"));
  // An invocation per output when the innermost dim is kept (neighbours
  // read neighbouring addresses) or there is little to sum; else a
  // workgroup per output.
  const bool per_thread =
      l.reduced <= 16 || (l.inner_kept && (l.outputs >= 1024 || l.reduced <= 64));
  DispatchStep step;
  l.Push(step.push);
  const uint32_t local = per_thread ? kThreadLocal : kGroupLocal;
  ASSIGN_OR_RETURN(step.pipeline,
                   ctx.GetPipeline("ops/reduce", 2, step.push.size(), {local, 1, 1},
                                   {per_thread ? 1u : 0u, static_cast<uint32_t>(kind_)}));
  step.bindings = {BufferRef::Input(0), BufferRef::Output(0)};
  step.groups = GroupsFor(l.outputs, per_thread ? local : 1, ctx.device());
  return MakeDispatchKernel(std::move(step));
}
}  // namespace vkserve
