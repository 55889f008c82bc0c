// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// CacheBudget: one memory budget over the per-shape-signature caches of the
// runtime — a Model's plans (constant buffers, folded host values) and its
// Sessions' per-signature state (activation arena, input/output and staging
// buffers, recorded command buffers). Each cache registers its entries with
// their device and host bytes; when the cached bytes would exceed a limit,
// the budget evicts whole entries, least recently used first, through their
// cache (CacheBudget::Owner), skipping entries in use (a plan a request or a
// session still holds, a session state whose run is in flight). An entry in
// use may push the bytes over a limit until it is released; it is then
// evicted like any other. After evicting at least kTrimHostBytes the freed
// host memory goes back to the system (malloc_trim), so RSS falls too.
//
// A budget may be shared by several models (ModelOptions::cache_budget);
// stats() is what the server exports as metrics.
//
// Thread-safe. Owners are held weakly: a cache may die at any time (it
// removes its entries in its destructor). Never call Enforce() while holding
// an Owner's lock: eviction calls back into owners.
#ifndef VKSERVE_GPU_CACHE_BUDGET_H_
#define VKSERVE_GPU_CACHE_BUDGET_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "base/mutex.h"
#include "gpu/device.h"

namespace vkserve {

// Bytes one cache entry holds: device-local memory, and host memory
// (host-visible GPU memory such as staging, and plain host allocations).
struct CacheCost {
  uint64_t device_bytes = 0;
  uint64_t host_bytes = 0;
};

// 0 means unlimited.
struct CacheLimits {
  uint64_t device_bytes = 0;
  uint64_t host_bytes = 0;

  // Defaults sized from the device: a quarter of its largest device-local
  // heap, and an eighth of physical host memory capped at 4 GiB (on a device
  // whose "device-local" heap is host memory, such as lavapipe, both count
  // against RSS).
  static CacheLimits ForDevice(const gpu::Device& device);
};

enum class CacheKind : uint8_t { kPlan = 0, kSessionState = 1 };
inline constexpr int kCacheKindCount = 2;
const char* CacheKindName(CacheKind kind);  // "plan", "session_state"

// Per kind: what is cached now and what happened so far.
struct CacheKindStats {
  uint64_t entries = 0;
  uint64_t device_bytes = 0;
  uint64_t host_bytes = 0;
  uint64_t evictions = 0;  // entries the budget evicted
  uint64_t hits = 0;       // lookups that found their entry
  uint64_t misses = 0;     // lookups that built one
};

struct CacheBudgetStats {
  CacheLimits limits;
  std::array<CacheKindStats, kCacheKindCount> by_kind{};
  uint64_t device_bytes = 0;  // all kinds
  uint64_t host_bytes = 0;
  uint64_t host_trims = 0;  // malloc_trim calls after evictions

  const CacheKindStats& of(CacheKind kind) const { return by_kind[static_cast<int>(kind)]; }
};

class CacheBudget {
 public:
  // A cache whose entries the budget may evict.
  class Owner {
   public:
    virtual ~Owner() = default;
    // Frees entry `id` (registered under `key`) unless it is in use, calling
    // Remove(id, true) before returning true. Called without the budget's
    // lock held.
    virtual bool EvictIfIdle(const std::string& key, uint64_t id) = 0;
  };

  // Host bytes evicted after which Enforce() returns free memory to the system.
  static constexpr uint64_t kTrimHostBytes = uint64_t{1} << 20;

  explicit CacheBudget(CacheLimits limits) : limits_(limits) {}
  CacheBudget(const CacheBudget&) = delete;
  CacheBudget& operator=(const CacheBudget&) = delete;

  const CacheLimits& limits() const { return limits_; }

  // Registers an entry as most recently used; returns its id.
  uint64_t Add(CacheKind kind, std::weak_ptr<Owner> owner, std::string key, CacheCost cost);
  // Marks an entry most recently used, with its current cost.
  void Touch(uint64_t id);
  void Update(uint64_t id, CacheCost cost);
  // Unregisters an entry; `evicted` counts it as an eviction.
  void Remove(uint64_t id, bool evicted);
  void RecordLookup(CacheKind kind, bool hit);

  // Evicts idle entries, least recently used first, until the cached bytes
  // plus `incoming` fit the limits or no idle entry is left.
  void Enforce(CacheCost incoming = {});

  CacheBudgetStats stats() const;

 private:
  struct Entry {
    CacheKind kind;
    std::weak_ptr<Owner> owner;
    std::string key;
    CacheCost cost;
    uint64_t last_use = 0;
  };
  bool Fits(CacheCost incoming) const ABSL_SHARED_LOCKS_REQUIRED(mutex_);
  // Entries by recency, oldest first.
  std::vector<std::pair<uint64_t, Entry>> Candidates() const ABSL_SHARED_LOCKS_REQUIRED(mutex_);

  const CacheLimits limits_;
  mutable Mutex mutex_;
  std::map<uint64_t, Entry> entries_ ABSL_GUARDED_BY(mutex_);
  uint64_t next_id_ ABSL_GUARDED_BY(mutex_) = 1;
  uint64_t clock_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t evicted_host_bytes_ ABSL_GUARDED_BY(mutex_) = 0;  // since the last trim
  CacheBudgetStats stats_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vkserve

#endif  // VKSERVE_GPU_CACHE_BUDGET_H_
