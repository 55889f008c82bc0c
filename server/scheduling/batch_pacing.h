// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BatchPacing: when a batch that could still grow should leave for a free
// session while another session of the same model still runs a batch on the
// same GPU.
//
// The dynamic batcher sends a batch as soon as a session is free and the
// oldest request has waited max_queue_delay (or a preferred size formed).
// With two sessions on one GPU that sends a half-formed batch while the
// other batch still holds the GPU, where it only queues behind it, and the
// requests arriving meanwhile form yet another small batch. On an H200,
// resnet50 at 64 clients ran 19.1 inferences per execution for a largest
// preferred size of 32, 9.07 ms of GPU time each with two sharing the GPU,
// where one batch of 32 alone took 11.16 ms.
//
// So a batch below the largest preferred size waits until it can just reach
// the GPU as the running batches' GPU work ends: `SendBy` is the latest
// expected end of that work minus the host lead a batch needs before its
// own GPU work starts (assembly, upload, submit), less a margin. Both come
// from runs that ended having replayed their commands (a recording run's
// host work does not recur): per execution size, moving averages of the
// lead and of the GPU time (a run's GPU work ends about lead + GPU time
// after its dispatch). When the other batch ends the hold ends with it, so
// a wrong estimate costs at most the lead (the GPU idles while this batch
// uploads), as with one session.
//
// Runs whose GPU work is short (under kMinHeldGpu) never hold a batch: a
// small model's rate is bound by host work, and two of its runs share the
// GPU at little cost, so waiting for one would only add latency.
//
// Thread-compatible: the dynamic batcher uses it under its lock.
#ifndef VKSERVE_SERVER_SCHEDULING_BATCH_PACING_H_
#define VKSERVE_SERVER_SCHEDULING_BATCH_PACING_H_

#include <cstdint>
#include <map>
#include <vector>

#include "absl/time/time.h"

namespace vkserve {

class BatchPacing {
 public:
  // GPU work shorter than this never holds a batch (above).
  static constexpr absl::Duration kMinHeldGpu = absl::Microseconds(500);

  // What one run took, as the batcher saw it.
  struct Ended {
    int64_t rows = 0;     // the execution's batch size (padding included)
    absl::Duration lead;  // dispatch until its GPU work was submitted
    absl::Duration gpu;   // its GPU work (timestamp queries)
  };

  // Execution sizes whose averages are kept; the least recently taught
  // goes first.
  static constexpr size_t kMaxSizes = 64;

  // `gpus`: GPUs the model runs on (>= 1).
  explicit BatchPacing(int gpus);

  // A run of `rows` rows was dispatched at `at` to `session` on `gpu`.
  // REQUIRES: `session` (an opaque key) has no run in flight.
  void Started(int gpu, const void* session, int64_t rows, absl::Time at);
  // That run ended; `ended` teaches the averages when its rows > 0 (a run
  // that failed before its GPU work teaches nothing: rows 0).
  void Finished(int gpu, const void* session, const Ended& ended);

  // The time by which a batch of up to `rows` rows should leave for `gpu`
  // to reach it as its running batches' GPU work ends; InfinitePast when
  // nothing runs there, only short GPU work runs, or nothing is learned yet.
  absl::Time SendBy(int gpu, int64_t rows) const;
  // Of `gpus` (equally loaded), the one a batch of `rows` can leave for
  // soonest (the first on a tie), its SendBy in `send_by`; -1 when `gpus`
  // is empty. So on a multi-GPU model a held batch waits for the GPU whose
  // running work ends first, not for the one listed first.
  int Soonest(const std::vector<int>& gpus, int64_t rows, absl::Time* send_by) const;

 private:
  struct Average {
    double lead_us = 0;
    double gpu_us = 0;
    uint64_t taught = 0;  // when last taught (eviction order)
  };
  struct Running {
    int64_t rows;
    absl::Time at;
  };
  // The learned average of the closest size: `rows` itself, else the
  // nearest larger, else the nearest smaller; nullptr when none is learned.
  const Average* Closest(int64_t rows) const;

  std::map<int64_t, Average> by_rows_;  // at most kMaxSizes
  uint64_t lessons_ = 0;
  std::vector<std::map<const void*, Running>> running_;  // per GPU
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SCHEDULING_BATCH_PACING_H_
