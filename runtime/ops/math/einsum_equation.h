// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// EinsumEquation: an Einsum equation ("bij,bjk->bik", "...ii->...i",
// "ij,jk") resolved against its operands' shapes into labels: every letter
// and every dim an ellipsis stands for is one label with one size; each
// operand has a stride per label (the sum of its dims' strides for a label
// repeated in it, a diagonal; 0 where the label is absent or broadcast from
// size 1), and the output lists its labels in order (implicit outputs: the
// ellipsis dims, then the letters used once, alphabetically). Plain data and
// pure functions; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_MATH_EINSUM_EQUATION_H_
#define VKSERVE_RUNTIME_OPS_MATH_EINSUM_EQUATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace vkserve {

struct EinsumEquation {
  std::vector<int64_t> sizes;                 // per label
  std::vector<std::vector<int64_t>> strides;  // per operand, per label
  std::vector<std::vector<bool>> present;     // per operand, per label
  std::vector<int> output;                    // labels of the output, in order

  std::vector<int64_t> OutputShape() const;
};

// INVALID_ARGUMENT for malformed equations or shapes that do not match them.
absl::StatusOr<EinsumEquation> ParseEinsum(const std::string& equation,
                                           const std::vector<std::vector<int64_t>>& shapes);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_MATH_EINSUM_EQUATION_H_
