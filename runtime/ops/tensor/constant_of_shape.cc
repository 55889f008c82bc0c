// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ConstantOfShape (opsets 9-27): a tensor of the host-known shape in input 0
// filled with the one-element `value` attribute (default float 0). Folded
// when small; larger ones are filled on the GPU — with vkCmdFillBuffer when
// the value is one repeated 32-bit word, else by broadcasting the value from
// the plan's constant buffer with a strided copy.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/kernels/strided_copy.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

absl::StatusOr<HostTensor> FillValue(const Node& node) {
  const Attribute* a = node.FindAttribute("value");
  if (a == nullptr) return HostTensor::FromFloats({0.0f}, {1});
  if (a->type != Attribute::Type::kTensor) {
    return absl::InvalidArgumentError("attribute 'value' must be a tensor");
  }
  if (a->t.num_elements() != 1) {
    return absl::InvalidArgumentError("attribute 'value' must hold one element");
  }
  if (!IsFoldableType(a->t.dtype)) {
    return absl::UnimplementedError(absl::StrCat(
        "ConstantOfShape of type ", std::string(DataTypeName(a->t.dtype)), " is not supported"));
  }
  return a->t;
}

absl::StatusOr<std::vector<int64_t>> ConstantOfShapeOutputShape(const HostTensor& shape) {
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, HostInts(shape, "shape"));
  for (int64_t d : dims) {
    if (d < 0)
      return absl::InvalidArgumentError(absl::StrCat("shape ", ShapeString(dims), " is negative"));
  }
  return dims;
}

// The 32-bit word the whole output repeats, if there is one.
bool RepeatedWord(const HostTensor& value, uint32_t* word) {
  const size_t size = value.data.size();
  uint8_t bytes[4];
  if (size == 1 || size == 2 || size == 4) {
    for (size_t i = 0; i < 4; ++i) bytes[i] = value.data[i % size];
  } else if (size == 8 && std::memcmp(value.data.data(), value.data.data() + 4, 4) == 0) {
    std::memcpy(bytes, value.data.data(), 4);
  } else {
    return false;
  }
  std::memcpy(word, bytes, 4);
  return true;
}

class FillKernel : public Kernel {
 public:
  explicit FillKernel(uint32_t word) : word_(word) {}
  absl::Status Record(const RecordContext& ctx) const override {
    if (ctx.outputs[0].size == 0) return absl::OkStatus();
    return ctx.command_buffer.Fill(WordRange(ctx.outputs[0]), word_, ctx.label);
  }

 private:
  uint32_t word_;
};

class ConstantOfShapeOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override { return FillValue(node).status(); }
  bool IsHostInput(const Node& /*node*/, size_t /*input_index*/) const override { return true; }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const HostTensor* shape, RequireHostInput(ctx, 0));
    ASSIGN_OR_RETURN(HostTensor value, FillValue(ctx.node));
    TensorDesc& out = ctx.outputs[0];
    out.dtype = value.dtype;
    ASSIGN_OR_RETURN(out.shape, ConstantOfShapeOutputShape(*shape));
    if (ShouldFold(ctx, out.num_elements())) {
      HostTensor t = ZeroTensor(out.dtype, out.shape);
      for (int64_t i = 0; i < out.num_elements(); ++i) CopyElement(value, 0, &t, i);
      out.value = Share(std::move(t));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(HostTensor value, FillValue(ctx.node()));
    const int64_t n = ctx.output(0).num_elements();
    uint32_t word = 0;
    // Fill covers whole words: exact for 4- and 8-byte types, and for smaller
    // ones the padding past the tensor's end is never read.
    if (RepeatedWord(value, &word)) return std::make_unique<FillKernel>(word);
    StridedCopy copy;
    copy.source = StridedCopy::Source::kConstant;
    copy.src_index = static_cast<int>(ctx.AddConstant(value.data.ToVector()));
    copy.shape = {n};
    copy.src_strides = {0};
    copy.dst_strides = {1};
    return CreateStridedCopyKernel(ctx, value.dtype, {std::move(copy)});
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "ConstantOfShape", 9, 27, ConstantOfShapeOp);

}  // namespace vkserve
