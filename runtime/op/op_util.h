// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Helpers shared by op implementations: shape arithmetic (broadcasting, axes,
// strides), attribute checks, host folding limits and dispatch sizing. Pure
// functions; thread-safe.
#ifndef VKSERVE_RUNTIME_OP_OP_UTIL_H_
#define VKSERVE_RUNTIME_OP_OP_UTIL_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "gpu/device_info.h"
#include "runtime/op/op.h"

namespace vkserve {

// Numpy-style broadcast of two shapes. INVALID_ARGUMENT when incompatible.
absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a,
                                                     const std::vector<int64_t>& b);

// Maps a possibly negative axis into [0, rank). INVALID_ARGUMENT when out of range.
absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank);

// Row-major strides in elements.
std::vector<int64_t> Strides(const std::vector<int64_t>& shape);

int64_t NumElements(const std::vector<int64_t>& shape);

// "[1,3,224,224]"
std::string ShapeString(const std::vector<int64_t>& shape);

// OK when `node` has no attribute `name` or it has type `type`.
// Refuses (UNIMPLEMENTED) a kernel whose busiest shader invocation may loop
// `iterations` times in all where the device would end its loops early
// (DeviceInfo::max_invocation_loop_iterations). `what` names the work, e.g.
// "NonZero of 3000000 elements". `share`: the part of the limit an upper-bound
// estimate may use, leaving a margin for loops it does not count.
absl::Status CheckInvocationLoops(const gpu::DeviceInfo& info, uint64_t iterations,
                                  absl::string_view what, double share = 1.0);

absl::Status CheckAttributeType(const Node& node, const std::string& name, Attribute::Type type);

// INVALID_ARGUMENT unless input i is present.
absl::StatusOr<const TensorDesc*> RequireInput(const InferContext& ctx, size_t i);

// The host value of input i, or INVALID_ARGUMENT saying it must be known at
// load time (a constant, or computable from shapes).
absl::StatusOr<const HostTensor*> RequireHostInput(const InferContext& ctx, size_t i);

// UNIMPLEMENTED unless `dtype` is one of `allowed`.
absl::Status CheckDataType(DataType dtype, std::initializer_list<DataType> allowed,
                           const std::string& what);

// True when every present input is host-known.
bool AllInputsHostKnown(const InferContext& ctx);

// A non-negative size or index known to fit the 32 bits a shader takes.
inline uint32_t U32(int64_t v) { return static_cast<uint32_t>(v); }

// ceil(a / b) for a >= 0, b > 0.
inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Workgroup count covering `n` invocations with workgroups of `local`,
// spread over x and y when x alone would exceed the device limit. The shader
// computes its linear index as gl_GlobalInvocationID.x +
// gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * local).
std::array<uint32_t, 3> GroupsFor(uint64_t n, uint32_t local, const gpu::Device& device);

// Push-constant block builder: appends 32-bit values in order.
class PushConstants {
 public:
  PushConstants& U32(uint32_t v) { return Raw(&v, 4); }
  PushConstants& I32(int32_t v) { return Raw(&v, 4); }
  PushConstants& F32(float v) { return Raw(&v, 4); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  uint32_t size() const { return static_cast<uint32_t>(bytes_.size()); }

 private:
  PushConstants& Raw(const void* p, size_t n) {
    const size_t at = bytes_.size();
    bytes_.resize(at + n);
    std::memcpy(bytes_.data() + at, p, n);
    return *this;
  }
  std::vector<uint8_t> bytes_;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OP_OP_UTIL_H_
