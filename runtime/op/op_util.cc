// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/op/op_util.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace vkserve {

absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a,
                                                     const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("shapes ", ShapeString(a), " and ", ShapeString(b), " do not broadcast"));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis ", axis, " is out of range for rank ", rank));
  }
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> Strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * shape[i + 1];
  }
  return strides;
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

absl::Status CheckInvocationLoops(const gpu::DeviceInfo& info, uint64_t iterations,
                                  absl::string_view what, double share) {
  const uint64_t limit = info.max_invocation_loop_iterations;
  if (limit == UINT64_MAX || static_cast<double>(iterations) <= share * static_cast<double>(limit))
    return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat(what, ": its shader may loop ", iterations,
                   " times in one invocation, more than vkserve runs on ", info.driver_name,
                   ", which ends a shader invocation's loops after ", limit, " iterations"));
}

absl::Status CheckAttributeType(const Node& node, const std::string& name, Attribute::Type type) {
  const Attribute* a = node.FindAttribute(name);
  if (a != nullptr && a->type != type) {
    return absl::InvalidArgumentError(absl::StrCat("attribute '", name, "' has the wrong type"));
  }
  return absl::OkStatus();
}

absl::StatusOr<const TensorDesc*> RequireInput(const InferContext& ctx, size_t i) {
  const TensorDesc* d = ctx.input(i);
  if (d == nullptr) return absl::InvalidArgumentError(absl::StrCat("input ", i, " is missing"));
  return d;
}

absl::StatusOr<const HostTensor*> RequireHostInput(const InferContext& ctx, size_t i) {
  ASSIGN_OR_RETURN(const TensorDesc* d, RequireInput(ctx, i));
  if (d->value == nullptr) {
    const std::string name = i < ctx.node.inputs.size() ? ctx.node.inputs[i] : "";
    return absl::UnimplementedError(absl::StrCat(
        "input ", i, " ('", name,
        "') must be known at load time (a constant, or computable from shapes); vkserve never "
        "reads tensor data back in the middle of a run"));
  }
  return d->value.get();
}

absl::Status CheckDataType(DataType dtype, std::initializer_list<DataType> allowed,
                           const std::string& what) {
  for (DataType a : allowed) {
    if (a == dtype) return absl::OkStatus();
  }
  std::vector<std::string> names;
  for (DataType a : allowed) names.emplace_back(DataTypeName(a));
  return absl::UnimplementedError(absl::StrCat(what, " has type ", std::string(DataTypeName(dtype)),
                                               "; supported: ", absl::StrJoin(names, ", ")));
}

bool AllInputsHostKnown(const InferContext& ctx) {
  for (const TensorDesc* d : ctx.inputs) {
    if (d != nullptr && d->value == nullptr) return false;
  }
  return true;
}

std::array<uint32_t, 3> GroupsFor(uint64_t n, uint32_t local, const gpu::Device& device) {
  const uint64_t groups = std::max<uint64_t>(1, (n + local - 1) / local);
  const uint64_t max_x = device.info().max_workgroup_count[0];
  if (groups <= max_x) return {static_cast<uint32_t>(groups), 1, 1};
  const uint64_t x = std::min<uint64_t>(max_x, 65535);
  return {static_cast<uint32_t>(x), static_cast<uint32_t>((groups + x - 1) / x), 1};
}

}  // namespace vkserve
