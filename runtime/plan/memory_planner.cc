// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/plan/memory_planner.h"

#include <algorithm>
#include <numeric>

namespace vkserve {

MemoryLayout PlanMemory(const std::vector<MemoryRequest>& requests, uint64_t alignment) {
  MemoryLayout layout;
  layout.offsets.assign(requests.size(), 0);
  auto aligned = [alignment](uint64_t size) { return (size + alignment - 1) & ~(alignment - 1); };

  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].size > requests[b].size; });

  struct Placed {
    uint64_t begin, end;
  };
  std::vector<size_t> placed;
  for (size_t r : order) {
    const MemoryRequest& req = requests[r];
    const uint64_t size = aligned(req.size);
    layout.total_bytes += size;
    if (size == 0) continue;
    // Byte ranges of placed tensors alive at the same time, by offset.
    std::vector<Placed> busy;
    for (size_t p : placed) {
      const MemoryRequest& other = requests[p];
      if (other.first_step <= req.last_step && req.first_step <= other.last_step) {
        busy.push_back({layout.offsets[p], layout.offsets[p] + aligned(other.size)});
      }
    }
    std::sort(busy.begin(), busy.end(),
              [](const Placed& a, const Placed& b) { return a.begin < b.begin; });
    uint64_t offset = 0;
    for (const Placed& b : busy) {
      if (b.begin >= offset + size) break;  // the gap before b fits
      offset = std::max(offset, b.end);
    }
    layout.offsets[r] = offset;
    layout.arena_bytes = std::max(layout.arena_bytes, offset + size);
    placed.push_back(r);
  }
  return layout;
}

}  // namespace vkserve
