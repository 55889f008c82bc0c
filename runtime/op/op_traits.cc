// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/op/op_traits.h"

#include "absl/strings/str_cat.h"

namespace vkserve {

absl::StatusOr<ActivationParams> OpTraits::EpilogueActivation(const Node& node,
                                                              const ConstantInput& constant) const {
  if (!epilogue_activation) {
    return absl::NotFoundError(absl::StrCat(node.op_type, " is not an activation"));
  }
  return epilogue_activation(node, constant);
}

OpTraits GemmEpilogueTraits(EpilogueSlots slots) {
  return OpTraits{
      .epilogue_slots = slots,
      .computes_on_gemm_engine = true,
      .float16 = Float16Use::kComputes,
  };
}

}  // namespace vkserve
