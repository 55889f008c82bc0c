// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/exec/session_state.h"

#include <utility>

namespace vkserve {
namespace {

// Host memory of a recording (command buffer, descriptor pools, timestamp
// queries) per planned node, and per command buffer: an estimate.
constexpr uint64_t kRecordingBytesPerNode = 512;
constexpr uint64_t kRecordingBytes = 16 << 10;

void Charge(const gpu::Buffer& b, CacheCost* cost) {
  if (b) (b.device_local() ? cost->device_bytes : cost->host_bytes) += b.size();
}

}  // namespace

CacheCost SessionState::Cost() const {
  CacheCost cost;
  Charge(arena, &cost);
  for (const auto* list : {&inputs, &input_staging, &outputs}) {
    for (const gpu::Buffer& b : *list) Charge(b, &cost);
  }
  for (const auto& b : readback) {
    if (b != nullptr) Charge(*b, &cost);
  }
  if (command_buffer != nullptr) {
    cost.host_bytes += kRecordingBytes + plan->nodes.size() * kRecordingBytesPerNode;
  }
  return cost;
}

CacheCost SessionState::Estimate(const Plan& plan) {
  // Counted as device bytes: where the buffers go is the allocator's choice.
  CacheCost cost;
  cost.device_bytes = plan.arena_bytes;
  for (int v : plan.input_values) cost.device_bytes += plan.values[v].desc.byte_size();
  for (int v : plan.output_values) cost.device_bytes += plan.values[v].desc.byte_size();
  cost.host_bytes = kRecordingBytes + plan.nodes.size() * kRecordingBytesPerNode;
  return cost;
}

StateCache::~StateCache() {
  MutexLock lock(&mutex_);
  for (const auto& [key, entry] : states_) budget_->Remove(entry.id, /*evicted=*/false);
}

SessionState* StateCache::Acquire(const std::string& key) {
  SessionState* state = nullptr;
  {
    MutexLock lock(&mutex_);
    auto it = states_.find(key);
    if (it != states_.end()) {
      it->second.busy = true;
      state = it->second.state.get();
      budget_->Touch(it->second.id);
    }
  }
  budget_->RecordLookup(CacheKind::kSessionState, state != nullptr);
  return state;
}

SessionState* StateCache::Insert(const std::string& key, std::unique_ptr<SessionState> state) {
  MutexLock lock(&mutex_);
  SessionState* raw = state.get();
  const uint64_t id = budget_->Add(CacheKind::kSessionState, weak_from_this(), key, state->Cost());
  states_[key] = Entry{std::move(state), id, /*busy=*/true};
  return raw;
}

void StateCache::Release(const std::string& key) {
  {
    MutexLock lock(&mutex_);
    auto it = states_.find(key);
    if (it == states_.end()) return;
    it->second.busy = false;
    budget_->Update(it->second.id, it->second.state->Cost());
  }
}

bool StateCache::EvictIfIdle(const std::string& key, uint64_t id) {
  std::unique_ptr<SessionState> evicted;  // freed after the lock is released
  {
    MutexLock lock(&mutex_);
    auto it = states_.find(key);
    if (it == states_.end() || it->second.id != id || it->second.busy) return false;
    evicted = std::move(it->second.state);
    states_.erase(it);
  }
  budget_->Remove(id, /*evicted=*/true);
  return true;
}

size_t StateCache::size() const {
  MutexLock lock(&mutex_);
  return states_.size();
}

}  // namespace vkserve
