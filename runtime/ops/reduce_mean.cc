// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ReduceMean (opsets 1-21), fp32: axes as an attribute before opset 18 and as
// a host-known input from 18 (with noop_with_empty_axes); keepdims. Adjacent
// kept or reduced dims are merged so any rank-6 input fits the shader.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/op_registry.h"
#include "runtime/op_util.h"
#include "runtime/ops/host_fold.h"

namespace vkserve {
namespace {

constexpr uint32_t kLocal = 64;

struct Reduction {
  std::vector<bool> reduced;   // per input dim
  std::vector<int64_t> out_shape;
  bool noop = false;
};

absl::StatusOr<Reduction> Resolve(const Node& node, const TensorDesc& x, const TensorDesc* axes_in) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> axes;
  if (node.opset >= 18) {
    if (axes_in != nullptr) {
      if (axes_in->value == nullptr) {
        return absl::UnimplementedError("ReduceMean's axes must be known at load time");
      }
      axes = axes_in->value->ToInts();
    }
  } else {
    axes = node.GetInts("axes");
  }
  Reduction r;
  r.reduced.assign(rank, false);
  if (axes.empty()) {
    if (node.GetInt("noop_with_empty_axes", 0) != 0) {
      r.noop = true;
      r.out_shape = x.shape;
      return r;
    }
    r.reduced.assign(rank, true);
  }
  for (int64_t a : axes) {
    ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, rank));
    if (r.reduced[axis]) return absl::InvalidArgumentError(absl::StrCat("axis ", a, " repeated"));
    r.reduced[axis] = true;
  }
  const bool keep = node.GetInt("keepdims", 1) != 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (!r.reduced[d]) r.out_shape.push_back(x.shape[d]);
    else if (keep) r.out_shape.push_back(1);
  }
  return r;
}

class ReduceMeanKernel : public Kernel {
 public:
  ReduceMeanKernel(std::shared_ptr<const gpu::Pipeline> pipeline, PushConstants push,
                   std::array<uint32_t, 3> groups, bool copy)
      : pipeline_(std::move(pipeline)), push_(std::move(push)), groups_(groups), copy_(copy) {}
  absl::Status Record(const RecordContext& ctx) const override {
    if (copy_) return ctx.command_buffer.Copy(ctx.inputs[0], ctx.outputs[0], ctx.label);
    const gpu::Binding bindings[] = {{ctx.inputs[0], gpu::Access::kRead},
                                     {ctx.outputs[0], gpu::Access::kWrite}};
    return ctx.command_buffer.Dispatch(pipeline_, bindings, push_.bytes(), groups_, ctx.label);
  }

 private:
  std::shared_ptr<const gpu::Pipeline> pipeline_;
  PushConstants push_;
  std::array<uint32_t, 3> groups_;
  bool copy_;
};

class ReduceMeanOp : public Op {
 public:
  bool IsHostInput(const Node&, size_t input_index) const override { return input_index == 1; }
  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "axes", Attribute::Type::kInts));
    return CheckAttributeType(node, "keepdims", Attribute::Type::kInt);
  }
  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    ASSIGN_OR_RETURN(Reduction r, Resolve(ctx.node, *x, ctx.input(1)));
    ctx.outputs[0].dtype = x->dtype;
    ctx.outputs[0].shape = r.out_shape;
    if (x->value != nullptr && IsFoldableType(x->dtype) && x->num_elements() <= kMaxFoldElements) {
      HostTensor out = ZeroTensor(x->dtype, r.out_shape);
      const int64_t n_out = out.num_elements();
      std::vector<double> sums(static_cast<size_t>(n_out), 0.0);
      std::vector<int64_t> counts(static_cast<size_t>(n_out), 0);
      const std::vector<int64_t> strides = Strides(x->shape);
      for (int64_t i = 0; i < x->num_elements(); ++i) {
        int64_t o = 0, rest = i;
        std::vector<int64_t> coord(x->shape.size());
        for (int d = static_cast<int>(x->shape.size()) - 1; d >= 0; --d) {
          coord[d] = rest % x->shape[d];
          rest /= x->shape[d];
        }
        for (size_t d = 0; d < x->shape.size(); ++d) {
          if (!r.reduced[d] || r.noop) o = o * x->shape[d] + coord[d];
        }
        sums[o] += ElementAsDouble(*x->value, i);
        ++counts[o];
      }
      for (int64_t o = 0; o < n_out; ++o) {
        SetElementFromDouble(&out, o, counts[o] ? sums[o] / static_cast<double>(counts[o]) : 0.0);
      }
      ctx.outputs[0].value = Share(std::move(out));
      return absl::OkStatus();
    }
    return CheckDataType(x->dtype, {DataType::kFloat}, "input 0");
  }
  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    ASSIGN_OR_RETURN(Reduction r, Resolve(ctx.node(), x, ctx.input(1)));
    if (r.noop) return std::make_unique<ReduceMeanKernel>(nullptr, PushConstants(), std::array<uint32_t, 3>{}, true);
    // Merge adjacent dims of the same class (dims of size 1 join either).
    std::vector<int64_t> dims;
    std::vector<bool> red;
    for (size_t d = 0; d < x.shape.size(); ++d) {
      if (x.shape[d] == 1) continue;
      if (!dims.empty() && red.back() == r.reduced[d]) {
        dims.back() *= x.shape[d];
      } else {
        dims.push_back(x.shape[d]);
        red.push_back(r.reduced[d]);
      }
    }
    const std::vector<int64_t> strides = Strides(dims);
    std::vector<uint32_t> kd, ks, rd, rs;
    uint64_t outputs = 1, reduced = 1;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (red[d]) {
        rd.push_back(static_cast<uint32_t>(dims[d]));
        rs.push_back(static_cast<uint32_t>(strides[d]));
        reduced *= dims[d];
      } else {
        kd.push_back(static_cast<uint32_t>(dims[d]));
        ks.push_back(static_cast<uint32_t>(strides[d]));
        outputs *= dims[d];
      }
    }
    if (kd.size() > 3 || rd.size() > 6) return absl::UnimplementedError("reduction too fragmented");
    PushConstants push;
    push.U32(static_cast<uint32_t>(outputs)).U32(static_cast<uint32_t>(reduced));
    push.U32(static_cast<uint32_t>(kd.size())).U32(static_cast<uint32_t>(rd.size()));
    for (size_t i = 0; i < 3; ++i) push.U32(i < kd.size() ? kd[i] : 1);
    for (size_t i = 0; i < 3; ++i) push.U32(i < ks.size() ? ks[i] : 0);
    for (size_t i = 0; i < 6; ++i) push.U32(i < rd.size() ? rd[i] : 1);
    for (size_t i = 0; i < 6; ++i) push.U32(i < rs.size() ? rs[i] : 0);
    ASSIGN_OR_RETURN(auto pipeline, ctx.GetPipeline("ops/reduce_mean", 2, push.size(), {kLocal, 1, 1}));
    return std::make_unique<ReduceMeanKernel>(std::move(pipeline), std::move(push),
                                              GroupsFor(outputs, 1, ctx.device()), false);
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "ReduceMean", 1, 21, ReduceMeanOp);

}  // namespace vkserve
