// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Host folding helpers shared by the shape and data-movement ops: element
// access in any numeric dtype, conversions, broadcasting index maps, and the
// decision whether a node is computed on the host at plan time (its inputs
// are all host-known and its outputs small; see kMaxFoldElements).
//
// Everything here works on HostTensor bytes (little-endian, dense) and is
// pure; thread-safe.
#ifndef VKSERVE_RUNTIME_KERNELS_HOST_FOLD_H_
#define VKSERVE_RUNTIME_KERNELS_HOST_FOLD_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"
#include "runtime/op/op.h"

namespace vkserve {

// True for the types host folding can compute with: bool, every integer and
// float width (float16/bfloat16 included). False for strings and complex.
bool IsFoldableType(DataType dtype);
bool IsFloatType(DataType dtype);  // float, double, float16, bfloat16

// A zero-filled tensor of `dtype` and `shape`.
HostTensor ZeroTensor(DataType dtype, std::vector<int64_t> shape);

// Element i of `t` as a double or int64, converting from any foldable dtype
// (floats to int64 truncate toward zero; bool reads 0/1).
// REQUIRES: IsFoldableType(t.dtype), 0 <= i < t.num_elements().
double ElementAsDouble(const HostTensor& t, int64_t i);
int64_t ElementAsInt(const HostTensor& t, int64_t i);

// Stores `v` into element i with the C++ conversion to t->dtype (bool: v != 0).
void SetElementFromDouble(HostTensor* t, int64_t i, double v);
void SetElementFromInt(HostTensor* t, int64_t i, int64_t v);

// Copies element `src_index` of `src` to element `dst_index` of `dst`, byte for
// byte. REQUIRES: same dtype.
void CopyElement(const HostTensor& src, int64_t src_index, HostTensor* dst, int64_t dst_index);

// `t` converted element by element to `to` (as the Cast op does).
// UNIMPLEMENTED for non-foldable types.
absl::StatusOr<HostTensor> ConvertTensor(const HostTensor& t, DataType to);

// Wraps a computed tensor for TensorDesc::value.
std::shared_ptr<const HostTensor> Share(HostTensor t);

// True when every present input of the node is host-known and `output_elements`
// is at most kMaxFoldElements: the node should be folded.
bool ShouldFold(const InferContext& ctx, int64_t output_elements);

// Output 0 of a reshape-like node (Reshape, Flatten, Squeeze, Unsqueeze):
// input 0's dtype and bytes under `shape`. The value is folded when input 0
// is host-known and small. REQUIRES: input 0 present with the same element
// count.
void SetAliasOutput(InferContext& ctx, std::vector<int64_t> shape);

// Maps linear indices of a broadcast output back to one input's linear index
// (numpy broadcasting, input shape right-aligned with the output's).
class BroadcastIndex {
 public:
  BroadcastIndex(const std::vector<int64_t>& input_shape, const std::vector<int64_t>& output_shape);
  int64_t operator()(int64_t output_index) const;
  // Element strides of the input over the output's dims (0 where broadcast).
  const std::vector<int64_t>& strides() const { return strides_; }

 private:
  std::vector<int64_t> out_shape_;
  std::vector<int64_t> strides_;
};

// The integer values of a host tensor used as a shape/axes list, with a
// helpful error when it is not 0-D or 1-D.
absl::StatusOr<std::vector<int64_t>> HostInts(const HostTensor& t, const std::string& what);

// Maps each of `axes` into [0, rank); INVALID_ARGUMENT when out of range or
// repeated.
absl::StatusOr<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_HOST_FOLD_H_
