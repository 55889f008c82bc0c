// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Queue policies as Triton defines them (dynamic_batching's
// default_queue_policy, priority_levels, default_priority_level and
// priority_queue_policy): which priority level a request waits at, the
// policy of that level, and the deadline that policy gives the request.
//
// Stateless functions; thread-safe.
#ifndef VKSERVE_SERVER_SCHEDULING_QUEUE_POLICY_H_
#define VKSERVE_SERVER_SCHEDULING_QUEUE_POLICY_H_

#include <cstdint>
#include <vector>

#include "absl/time/time.h"
#include "config/model_config.h"
#include "server/scheduling/scheduler.h"

namespace vkserve {

using QueuePolicy = ModelSettings::QueuePolicy;

// The queue of each priority level, index 0 = level 1 (served first); one
// entry, the default policy, when the model has no priority levels.
std::vector<QueuePolicy> LevelPolicies(const ModelSettings& settings);

// The level index (into LevelPolicies) a request of `priority` waits at:
// 0 and out-of-range priorities take default_priority_level (Triton's rule).
int PriorityIndex(const ModelSettings& settings, uint64_t priority);

// When a request submitted at `submitted` times out: the client's deadline,
// brought closer by the policy's default timeout, which the request's own
// "timeout" replaces when the policy has none or allows overriding it.
absl::Time QueueDeadline(const QueuePolicy& policy, absl::Time submitted,
                         const SchedulerRequest& request);

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SCHEDULING_QUEUE_POLICY_H_
