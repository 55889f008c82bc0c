// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/op/op.h"

#include "absl/strings/str_cat.h"
#include "runtime/op/op_util.h"

namespace vkserve {

int64_t TensorDesc::num_elements() const { return NumElements(shape); }

uint64_t TensorDesc::byte_size() const {
  return static_cast<uint64_t>(num_elements()) * DataTypeSize(dtype);
}

std::string TensorDesc::ToString() const {
  return absl::StrCat(std::string(DataTypeName(dtype)), ShapeString(shape));
}

absl::StatusOr<std::unique_ptr<Kernel>> Op::CreateKernel(KernelContext& ctx) const {
  return absl::InternalError(
      absl::StrCat(ctx.node().op_type, " has no GPU kernel (it must be folded or aliased)"));
}

absl::Status Op::Expand(ExpandContext& ctx) const {
  return absl::InternalError(absl::StrCat(ctx.node().op_type, " is not a control-flow op"));
}

const OpTraits& Op::traits() const {
  static const OpTraits kDefault;
  static const OpTraits kAlias{.float16 = Float16Use::kMoves};
  return execution() == Execution::kAlias ? kAlias : kDefault;
}

}  // namespace vkserve
