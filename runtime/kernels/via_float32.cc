// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/kernels/via_float32.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "runtime/kernels/cast_op.h"
#include "runtime/kernels/composite_kernel.h"
#include "runtime/kernels/host_fold.h"

namespace vkserve {
namespace {

bool Converted(const TensorDesc* d, TypeMask types) {
  return d != nullptr && (TypeBit(d->dtype) & types) != 0;
}

// The node's context with its converted inputs and outputs described as float.
class NarrowedKernelContext : public ForwardingKernelContext {
 public:
  NarrowedKernelContext(KernelContext& outer, DataType wide)
      : ForwardingKernelContext(outer), wide_(wide) {
    for (size_t i = 0; i < outer.num_inputs(); ++i) {
      const TensorDesc* in = outer.input(i);
      inputs_.push_back(in == nullptr ? TensorDesc{} : Narrow(*in, types_of(in)));
    }
    for (size_t o = 0; o < outer.num_outputs(); ++o) {
      outputs_.push_back(Narrow(outer.output(o), TypeBit(wide_)));
    }
  }

  const TensorDesc* input(size_t i) const override {
    return base().input(i) == nullptr ? nullptr : &inputs_[i];
  }
  size_t num_inputs() const override { return inputs_.size(); }
  const TensorDesc& output(size_t i) const override { return outputs_[i]; }
  size_t num_outputs() const override { return outputs_.size(); }

 private:
  TypeMask types_of(const TensorDesc* in) const { return in->dtype == wide_ ? TypeBit(wide_) : 0; }

  static TensorDesc Narrow(const TensorDesc& d, TypeMask types) {
    TensorDesc n = d;
    if (Converted(&d, types)) {
      n.dtype = DataType::kFloat;
      n.value = nullptr;
      if (d.value != nullptr) {  // a host input (Clip's bounds) as float
        if (auto f = ConvertTensor(*d.value, DataType::kFloat); f.ok())
          n.value = Share(*std::move(f));
      }
    }
    return n;
  }

  DataType wide_;
  std::vector<TensorDesc> inputs_;
  std::vector<TensorDesc> outputs_;
};

}  // namespace

// Input 0's type when it is one of `types` (the type the op's type
// constraint follows), else kUndefined.
DataType ConvertedType(const TensorDesc* input0, TypeMask types) {
  return Converted(input0, types) ? input0->dtype : DataType::kUndefined;
}

absl::Status InferViaFloat32(InferContext& ctx, TypeMask types, const InferFn& infer) {
  const DataType wide = ConvertedType(ctx.input(0), types);
  if (wide == DataType::kUndefined) return infer(ctx);
  types = TypeBit(wide);
  std::vector<TensorDesc> narrowed(ctx.inputs.size());
  InferContext inner{ctx.node, {}, {}, ctx.max_fold_elements};
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    const TensorDesc* in = ctx.inputs[i];
    if (!Converted(in, types)) {
      inner.inputs.push_back(in);
      continue;
    }
    narrowed[i] = TensorDesc{DataType::kFloat, in->shape, nullptr};
    if (in->value != nullptr) {
      ASSIGN_OR_RETURN(HostTensor f, ConvertTensor(*in->value, DataType::kFloat));
      narrowed[i].value = Share(std::move(f));
    }
    inner.inputs.push_back(&narrowed[i]);
  }
  inner.outputs.resize(ctx.outputs.size());
  RETURN_IF_ERROR(infer(inner));
  for (size_t o = 0; o < inner.outputs.size(); ++o) {
    TensorDesc& out = inner.outputs[o];
    if (out.dtype == DataType::kFloat) {
      out.dtype = wide;
      if (out.value != nullptr) {
        ASSIGN_OR_RETURN(HostTensor d, ConvertTensor(*out.value, wide));
        out.value = Share(std::move(d));
      }
    }
    ctx.outputs[o] = std::move(out);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateKernelViaFloat32(
    KernelContext& ctx, TypeMask types, const std::function<bool(size_t)>& is_host_input,
    const CreateKernelFn& create) {
  const DataType wide = ConvertedType(ctx.num_inputs() > 0 ? ctx.input(0) : nullptr, types);
  if (wide == DataType::kUndefined) return create(ctx);
  types = TypeBit(wide);

  std::vector<CompositeStep> steps;
  CompositeStep main;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const TensorDesc* in = ctx.input(i);
    NodeBuffer from{NodeBuffer::Source::kInput, static_cast<uint32_t>(i)};
    if (!Converted(in, types) || in->num_elements() == 0 || is_host_input(i)) {
      main.inputs.push_back(from);
      continue;
    }
    const NodeBuffer narrowed{NodeBuffer::Source::kScratch,
                              ctx.RequestScratch(static_cast<uint64_t>(in->num_elements()) * 4)};
    ASSIGN_OR_RETURN(auto cast, CreateCastKernel(ctx, wide, DataType::kFloat, in->num_elements()));
    steps.push_back({std::move(cast), {from}, {narrowed}});
    main.inputs.push_back(narrowed);
  }
  std::vector<CompositeStep> widen;
  for (size_t o = 0; o < ctx.num_outputs(); ++o) {
    const TensorDesc& out = ctx.output(o);
    const NodeBuffer to{NodeBuffer::Source::kOutput, static_cast<uint32_t>(o)};
    if (out.dtype != wide || out.num_elements() == 0) {
      main.outputs.push_back(to);
      continue;
    }
    const NodeBuffer narrowed{NodeBuffer::Source::kScratch,
                              ctx.RequestScratch(static_cast<uint64_t>(out.num_elements()) * 4)};
    ASSIGN_OR_RETURN(auto cast, CreateCastKernel(ctx, DataType::kFloat, wide, out.num_elements()));
    widen.push_back({std::move(cast), {narrowed}, {to}});
    main.outputs.push_back(narrowed);
  }
  NarrowedKernelContext narrowed_ctx(ctx, wide);
  ASSIGN_OR_RETURN(main.kernel, create(narrowed_ctx));
  // Described as the fp32 kernel it wraps (inspect, tests of its choice).
  std::string description = main.kernel->Describe();
  if (!description.empty()) {
    absl::StrAppend(&description, ", between conversions from ", std::string(DataTypeName(wide)));
  }
  steps.push_back(std::move(main));
  for (CompositeStep& s : widen) steps.push_back(std::move(s));
  return std::make_unique<CompositeKernel>(std::move(steps), std::move(description));
}

}  // namespace vkserve
