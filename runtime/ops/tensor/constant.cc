// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Constant (opsets 1-27): a tensor given by one attribute — `value` (a
// tensor), `value_float(s)` or `value_int(s)` (opset 12+). Always folded.
// `sparse_value` and `value_string(s)` are UNIMPLEMENTED.
#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

// The tensor a Constant node holds.
absl::StatusOr<HostTensor> ConstantValue(const Node& node) {
  int given = 0;
  for (const auto& [name, attr] : node.attributes) {
    (void)attr;
    if (name.rfind("value", 0) == 0 || name == "sparse_value") ++given;
  }
  if (given != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Constant needs exactly one value attribute, got ", given));
  }
  for (const char* name : {"sparse_value", "value_string", "value_strings"}) {
    if (node.FindAttribute(name) != nullptr) {
      return absl::UnimplementedError(
          absl::StrCat("Constant attribute '", name, "' is not supported"));
    }
  }
  if (const Attribute* a = node.FindAttribute("value")) {
    if (a->type != Attribute::Type::kTensor) {
      return absl::InvalidArgumentError("attribute 'value' must be a tensor");
    }
    if (!IsFoldableType(a->t.dtype)) {
      return absl::UnimplementedError(absl::StrCat(
          "Constant of type ", std::string(DataTypeName(a->t.dtype)), " is not supported"));
    }
    return a->t;
  }
  if (const Attribute* a = node.FindAttribute("value_float")) {
    if (a->type != Attribute::Type::kFloat) {
      return absl::InvalidArgumentError("attribute 'value_float' must be a float");
    }
    return HostTensor::FromFloats({a->f}, {});
  }
  if (const Attribute* a = node.FindAttribute("value_floats")) {
    if (a->type != Attribute::Type::kFloats) {
      return absl::InvalidArgumentError("attribute 'value_floats' must be floats");
    }
    return HostTensor::FromFloats(a->floats, {static_cast<int64_t>(a->floats.size())});
  }
  if (const Attribute* a = node.FindAttribute("value_int")) {
    if (a->type != Attribute::Type::kInt) {
      return absl::InvalidArgumentError("attribute 'value_int' must be an int");
    }
    return HostTensor::FromInts({a->i}, {});
  }
  const Attribute* a = node.FindAttribute("value_ints");
  if (a == nullptr || a->type != Attribute::Type::kInts) {
    return absl::InvalidArgumentError("Constant has no usable value attribute");
  }
  return HostTensor::FromInts(a->ints, {static_cast<int64_t>(a->ints.size())});
}

class ConstantOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override { return ConstantValue(node).status(); }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(HostTensor value, ConstantValue(ctx.node));
    TensorDesc& out = ctx.outputs[0];
    out.dtype = value.dtype;
    out.shape = value.shape;
    out.value = Share(std::move(value));
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "Constant", 1, 27, ConstantOp);

}  // namespace vkserve
