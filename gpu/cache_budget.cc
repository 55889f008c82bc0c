// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/cache_budget.h"

#include <unistd.h>

#include <algorithm>
#include <vector>

#include "base/host_heap.h"

namespace vkserve {

CacheLimits CacheLimits::ForDevice(const gpu::Device& device) {
  const uint64_t heap = device.info().largest_device_local_heap();
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  const uint64_t host = pages > 0 && page_size > 0
                            ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size)
                            : uint64_t{8} << 30;
  CacheLimits limits;
  limits.device_bytes = std::max<uint64_t>(heap / 4, uint64_t{64} << 20);
  limits.host_bytes = std::clamp<uint64_t>(host / 8, uint64_t{64} << 20, uint64_t{4} << 30);
  return limits;
}

const char* CacheKindName(CacheKind kind) {
  return kind == CacheKind::kPlan ? "plan" : "session_state";
}

uint64_t CacheBudget::Add(CacheKind kind, std::weak_ptr<Owner> owner, std::string key,
                          CacheCost cost) {
  MutexLock lock(&mutex_);
  const uint64_t id = next_id_++;
  entries_.emplace(id, Entry{kind, std::move(owner), std::move(key), cost, ++clock_});
  CacheKindStats& s = stats_.by_kind[static_cast<int>(kind)];
  ++s.entries;
  s.device_bytes += cost.device_bytes;
  s.host_bytes += cost.host_bytes;
  stats_.device_bytes += cost.device_bytes;
  stats_.host_bytes += cost.host_bytes;
  return id;
}

void CacheBudget::Touch(uint64_t id) {
  MutexLock lock(&mutex_);
  auto it = entries_.find(id);
  if (it != entries_.end()) it->second.last_use = ++clock_;
}

void CacheBudget::Update(uint64_t id, CacheCost cost) {
  MutexLock lock(&mutex_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  Entry& e = it->second;
  CacheKindStats& s = stats_.by_kind[static_cast<int>(e.kind)];
  s.device_bytes += cost.device_bytes - e.cost.device_bytes;  // modular: exact
  s.host_bytes += cost.host_bytes - e.cost.host_bytes;
  stats_.device_bytes += cost.device_bytes - e.cost.device_bytes;
  stats_.host_bytes += cost.host_bytes - e.cost.host_bytes;
  e.cost = cost;
  e.last_use = ++clock_;
}

void CacheBudget::Remove(uint64_t id, bool evicted) {
  MutexLock lock(&mutex_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  const Entry& e = it->second;
  CacheKindStats& s = stats_.by_kind[static_cast<int>(e.kind)];
  --s.entries;
  s.device_bytes -= e.cost.device_bytes;
  s.host_bytes -= e.cost.host_bytes;
  stats_.device_bytes -= e.cost.device_bytes;
  stats_.host_bytes -= e.cost.host_bytes;
  if (evicted) {
    ++s.evictions;
    // Device-local memory is host memory on unified devices (lavapipe):
    // both count towards a trim.
    evicted_host_bytes_ += e.cost.host_bytes + e.cost.device_bytes;
  }
  entries_.erase(it);
}

void CacheBudget::RecordLookup(CacheKind kind, bool hit) {
  MutexLock lock(&mutex_);
  CacheKindStats& s = stats_.by_kind[static_cast<int>(kind)];
  ++(hit ? s.hits : s.misses);
}

bool CacheBudget::Fits(CacheCost incoming) const {
  const bool device_ok = limits_.device_bytes == 0 ||
                         stats_.device_bytes + incoming.device_bytes <= limits_.device_bytes;
  const bool host_ok =
      limits_.host_bytes == 0 || stats_.host_bytes + incoming.host_bytes <= limits_.host_bytes;
  return device_ok && host_ok;
}

std::vector<std::pair<uint64_t, CacheBudget::Entry>> CacheBudget::Candidates() const {
  std::vector<std::pair<uint64_t, Entry>> out(entries_.begin(), entries_.end());
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.second.last_use < b.second.last_use; });
  return out;
}

void CacheBudget::Enforce(CacheCost incoming) {
  // Evicting a session's state releases its hold on a plan, which a later
  // pass may then evict: repeat while passes make progress.
  bool done = false;
  while (!done) {
    std::vector<std::pair<uint64_t, Entry>> candidates;
    {
      ReaderMutexLock lock(&mutex_);
      if (Fits(incoming)) break;
      candidates = Candidates();
    }
    bool progress = false;
    for (const auto& [id, entry] : candidates) {
      {
        ReaderMutexLock lock(&mutex_);
        if (Fits(incoming)) {
          done = true;
          break;
        }
        if (!entries_.contains(id)) continue;
      }
      const std::shared_ptr<Owner> owner = entry.owner.lock();
      if (owner != nullptr && owner->EvictIfIdle(entry.key, id)) progress = true;
    }
    if (!progress) break;
  }
  bool trim = false;
  {
    MutexLock lock(&mutex_);
    if (evicted_host_bytes_ >= kTrimHostBytes) {
      evicted_host_bytes_ = 0;
      ++stats_.host_trims;
      trim = true;
    }
  }
  if (trim) TrimHostMemory();
}

CacheBudgetStats CacheBudget::stats() const {
  ReaderMutexLock lock(&mutex_);
  CacheBudgetStats s = stats_;
  s.limits = limits_;
  return s;
}

}  // namespace vkserve
