// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Memory planner: places tensors with known lifetimes in one arena so that
// tensors alive at the same time never overlap and the arena stays small
// (greedy by size, in the style of TFLite's and ggml-alloc's planners: the
// largest tensors are placed first, each at the lowest offset that fits
// between the tensors it overlaps in time). Pure function; thread-safe.
#ifndef VKSERVE_RUNTIME_PLAN_MEMORY_PLANNER_H_
#define VKSERVE_RUNTIME_PLAN_MEMORY_PLANNER_H_

#include <cstdint>
#include <vector>

namespace vkserve {

struct MemoryRequest {
  uint64_t size = 0;
  int first_step = 0;  // inclusive; steps are node positions
  int last_step = 0;   // inclusive
};

struct MemoryLayout {
  std::vector<uint64_t> offsets;  // per request
  uint64_t arena_bytes = 0;
  uint64_t total_bytes = 0;  // sum of aligned sizes (no sharing)
};

// REQUIRES: alignment is a power of two; first_step <= last_step.
MemoryLayout PlanMemory(const std::vector<MemoryRequest>& requests, uint64_t alignment);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PLAN_MEMORY_PLANNER_H_
