// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/plan/plan_cache.h"

#include <utility>
#include <vector>

#include "base/status_macros.h"

namespace vkserve {
namespace {

// Host bytes of a node's planned kernel, descriptors and bookkeeping: an
// estimate; folded values dominate where plans are large.
constexpr uint64_t kNodeOverheadBytes = 512;

}  // namespace

PlanCache::~PlanCache() {
  MutexLock lock(&mutex_);
  for (const auto& [key, entry] : plans_) budget_->Remove(entry.id, /*evicted=*/false);
}

CacheCost PlanCache::Cost(const Plan& plan, const Graph& graph) {
  CacheCost cost;
  if (plan.constants) {
    (plan.constants.device_local() ? cost.device_bytes : cost.host_bytes) += plan.constants.size();
  }
  cost.host_bytes += sizeof(Plan) + plan.nodes.size() * kNodeOverheadBytes;
  for (const PlannedValue& v : plan.values) {
    cost.host_bytes += sizeof(PlannedValue) + v.name.size();
    if (v.desc.value != nullptr && !graph.initializers.contains(v.name)) {
      cost.host_bytes += v.desc.value->data.size();
    }
  }
  return cost;
}

absl::StatusOr<std::shared_ptr<const Plan>> PlanCache::GetOrBuild(const std::string& key,
                                                                  const Builder& build) {
  uint64_t id = 0;
  {
    MutexLock lock(&mutex_);
    auto it = plans_.find(key);
    if (it != plans_.end()) id = it->second.id;
    if (id != 0) {
      std::shared_ptr<const Plan> plan = it->second.plan;
      budget_->Touch(id);
      budget_->RecordLookup(CacheKind::kPlan, true);
      return plan;
    }
  }
  budget_->RecordLookup(CacheKind::kPlan, false);
  ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan, build());
  {
    MutexLock lock(&mutex_);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second.plan;  // built meanwhile by another thread
    id = budget_->Add(CacheKind::kPlan, weak_from_this(), key, Cost(*plan, *graph_));
    plans_.emplace(key, Entry{plan, id});
  }
  budget_->Enforce();  // `plan` is held here: in use, never evicted now
  return plan;
}

bool PlanCache::EvictIfIdle(const std::string& key, uint64_t id) {
  std::shared_ptr<const Plan> evicted;  // freed after the lock is released
  {
    MutexLock lock(&mutex_);
    auto it = plans_.find(key);
    if (it == plans_.end() || it->second.id != id || it->second.plan.use_count() > 1) return false;
    evicted = std::move(it->second.plan);
    plans_.erase(it);
  }
  budget_->Remove(id, /*evicted=*/true);
  return true;
}

bool PlanCache::Contains(const std::string& key) const {
  MutexLock lock(&mutex_);
  return plans_.contains(key);
}

size_t PlanCache::size() const {
  MutexLock lock(&mutex_);
  return plans_.size();
}

}  // namespace vkserve
