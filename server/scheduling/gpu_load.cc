// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/scheduling/gpu_load.h"

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"

namespace vkserve {

absl::StatusOr<std::vector<int>> SessionsByGpu(const std::vector<ModelReplica>& replicas,
                                               std::string_view scheduler) {
  if (replicas.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(scheduler), " needs at least one GPU"));
  }
  std::vector<int> sessions;
  for (const ModelReplica& r : replicas) {
    if (r.sessions < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(scheduler), " needs at least one session per GPU"));
    }
    sessions.push_back(r.sessions);
  }
  return sessions;
}

GpuLoad::GpuLoad(std::vector<int> sessions)
    : sessions_(std::move(sessions)), busy_(sessions_.size(), 0) {}

int GpuLoad::Pick() const {
  int best = -1;
  for (size_t g = 0; g < sessions_.size(); ++g) {
    if (busy_[g] >= sessions_[g]) continue;
    if (best < 0 || busy_[g] < busy_[static_cast<size_t>(best)]) best = static_cast<int>(g);
  }
  return best;
}

std::vector<int> GpuLoad::LeastBusy() const {
  std::vector<int> tied;
  const int best = Pick();
  if (best < 0) return tied;
  for (size_t g = 0; g < sessions_.size(); ++g) {
    if (busy_[g] < sessions_[g] && busy_[g] == busy_[static_cast<size_t>(best)]) {
      tied.push_back(static_cast<int>(g));
    }
  }
  return tied;
}

void GpuLoad::Take(int gpu) {
  const size_t g = static_cast<size_t>(gpu);
  if (g >= busy_.size() || busy_[g] >= sessions_[g]) std::abort();  // a scheduler bug
  ++busy_[g];
}

void GpuLoad::Give(int gpu) {
  const size_t g = static_cast<size_t>(gpu);
  if (g >= busy_.size() || busy_[g] <= 0) std::abort();
  --busy_[g];
}

}  // namespace vkserve
