// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/scheduling/queue_policy.h"

#include <algorithm>
#include <optional>

namespace vkserve {

std::vector<QueuePolicy> LevelPolicies(const ModelSettings& settings) {
  const QueuePolicy fallback{settings.max_queue_size, settings.default_timeout,
                             settings.allow_timeout_override};
  std::vector<QueuePolicy> levels(static_cast<size_t>(std::max(1, settings.priority_levels)),
                                  fallback);
  for (const auto& [level, policy] : settings.priority_queue_policies) {
    if (level >= 1 && level <= static_cast<int>(levels.size())) {
      levels[static_cast<size_t>(level - 1)] = policy;
    }
  }
  return levels;
}

int PriorityIndex(const ModelSettings& settings, uint64_t priority) {
  if (settings.priority_levels <= 0) return 0;
  if (priority == 0 || priority > static_cast<uint64_t>(settings.priority_levels)) {
    return std::max(settings.default_priority_level, 1) - 1;
  }
  return static_cast<int>(priority) - 1;
}

absl::Time QueueDeadline(const QueuePolicy& policy, absl::Time submitted,
                         const SchedulerRequest& request) {
  std::optional<absl::Duration> timeout;
  if (policy.default_timeout > absl::ZeroDuration()) timeout = policy.default_timeout;
  if (request.timeout && (!timeout || policy.allow_timeout_override)) timeout = request.timeout;
  absl::Time deadline = request.deadline;
  if (timeout) deadline = std::min(deadline, submitted + *timeout);
  return deadline;
}

}  // namespace vkserve
