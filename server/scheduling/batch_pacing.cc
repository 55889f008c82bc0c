// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/scheduling/batch_pacing.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>

namespace vkserve {
namespace {

// Each run moves an average an eighth of the way: a few runs follow a
// change of clocks or load, and one slow run does not swing it.
constexpr double kWeight = 1.0 / 8;

double Micros(absl::Duration d) { return absl::ToDoubleMicroseconds(d); }
// Whole nanoseconds, so that equal inputs give equal times.
absl::Duration FromMicros(double us) { return absl::Nanoseconds(std::llround(us * 1e3)); }

}  // namespace

BatchPacing::BatchPacing(int gpus) : running_(static_cast<size_t>(std::max(gpus, 1))) {}

void BatchPacing::Started(int gpu, const void* session, int64_t rows, absl::Time at) {
  const bool inserted =
      running_[static_cast<size_t>(gpu)].emplace(session, Running{rows, at}).second;
  if (!inserted) std::abort();  // a scheduler bug: the session was not idle
}

void BatchPacing::Finished(int gpu, const void* session, const Ended& ended) {
  running_[static_cast<size_t>(gpu)].erase(session);
  if (ended.rows <= 0) return;
  auto it = by_rows_.find(ended.rows);
  if (it == by_rows_.end()) {
    if (by_rows_.size() >= kMaxSizes) {
      by_rows_.erase(std::min_element(
          by_rows_.begin(), by_rows_.end(),
          [](const auto& a, const auto& b) { return a.second.taught < b.second.taught; }));
    }
    Average first;
    first.lead_us = Micros(ended.lead);
    first.gpu_us = Micros(ended.gpu);
    it = by_rows_.emplace(ended.rows, first).first;
  } else {
    it->second.lead_us += kWeight * (Micros(ended.lead) - it->second.lead_us);
    it->second.gpu_us += kWeight * (Micros(ended.gpu) - it->second.gpu_us);
  }
  it->second.taught = ++lessons_;
}

const BatchPacing::Average* BatchPacing::Closest(int64_t rows) const {
  if (by_rows_.empty()) return nullptr;
  auto it = by_rows_.lower_bound(rows);  // rows itself, or the nearest larger
  if (it == by_rows_.end()) it = std::prev(it);
  return &it->second;
}

absl::Time BatchPacing::SendBy(int gpu, int64_t rows) const {
  absl::Time gpu_free = absl::InfinitePast();
  for (const auto& [session, run] : running_[static_cast<size_t>(gpu)]) {
    const Average* a = Closest(run.rows);
    if (a == nullptr) return absl::InfinitePast();  // nothing learned: never hold
    if (a->gpu_us < Micros(kMinHeldGpu)) continue;
    gpu_free = std::max(gpu_free, run.at + FromMicros(a->lead_us + a->gpu_us));
  }
  if (gpu_free == absl::InfinitePast()) return gpu_free;
  // A tenth of the lead and 50 µs to spare: the GPU idling while this batch
  // uploads costs more than the few rows it might still gain.
  const absl::Duration lead = FromMicros(Closest(rows)->lead_us);
  return gpu_free - lead - lead / 10 - absl::Microseconds(50);
}

int BatchPacing::Soonest(const std::vector<int>& gpus, int64_t rows, absl::Time* send_by) const {
  int best = -1;
  *send_by = absl::InfiniteFuture();
  for (int gpu : gpus) {
    const absl::Time by = SendBy(gpu, rows);
    if (best < 0 || by < *send_by) {
      best = gpu;
      *send_by = by;
    }
  }
  return best;
}

}  // namespace vkserve
