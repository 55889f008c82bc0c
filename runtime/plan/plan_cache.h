// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// PlanCache: a Model's plans by input-shape signature, charged to a
// CacheBudget and evicted by it least recently used first. A plan still held
// elsewhere (a running request, a session's per-signature state) is in use
// and stays; the shared_ptr keeps an evicted-while-held plan alive anyway.
//
// Thread-safe. Create with std::make_shared (the budget holds it weakly).
#ifndef VKSERVE_RUNTIME_PLAN_PLAN_CACHE_H_
#define VKSERVE_RUNTIME_PLAN_PLAN_CACHE_H_

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "gpu/cache_budget.h"
#include "runtime/ir/graph.h"
#include "runtime/plan/plan.h"

namespace vkserve {

class PlanCache : public CacheBudget::Owner, public std::enable_shared_from_this<PlanCache> {
 public:
  using Builder = std::function<absl::StatusOr<std::shared_ptr<const Plan>>()>;

  // `graph` (whose initializers plans borrow, not charged) must outlive the cache.
  PlanCache(std::shared_ptr<CacheBudget> budget, const Graph* graph)
      : budget_(std::move(budget)), graph_(graph) {}
  ~PlanCache() override;

  // The cached plan for `key`, or `build`'s, cached. `build` runs without the
  // cache's lock; errors are not cached.
  absl::StatusOr<std::shared_ptr<const Plan>> GetOrBuild(const std::string& key,
                                                         const Builder& build);

  // Whether `key`'s plan is cached now (it may be evicted right after).
  // Neither builds nor counts as a use.
  bool Contains(const std::string& key) const;

  bool EvictIfIdle(const std::string& key, uint64_t id) override;
  size_t size() const;

  // What a plan holds: its constant buffer, folded host values (not the
  // graph's initializers) and a per-node estimate of kernels and metadata.
  static CacheCost Cost(const Plan& plan, const Graph& graph);

 private:
  struct Entry {
    std::shared_ptr<const Plan> plan;
    uint64_t id = 0;
  };
  const std::shared_ptr<CacheBudget> budget_;
  const Graph* const graph_;
  mutable Mutex mutex_;
  std::map<std::string, Entry> plans_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PLAN_PLAN_CACHE_H_
