// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// GpuLoad: which GPU a scheduler's next run goes to. A model served on
// several GPUs (Triton's instance_group with several gpus) has one
// ModelReplica per GPU — the model loaded there and its sessions — and a
// scheduler (session_pool.h, dynamic_batcher.h) spreads runs over them
// least-loaded first: the GPU with an idle session and the fewest busy
// ones, ties to the GPU listed first (the dynamic batcher breaks ties by
// which GPU's running work ends first: BatchPacing::Soonest). So two
// requests at once on an idle two-GPU model run one on each GPU, not both on
// the first.
//
// Thread-compatible: the scheduler's own lock (or thread) guards it.
#ifndef VKSERVE_SERVER_SCHEDULING_GPU_LOAD_H_
#define VKSERVE_SERVER_SCHEDULING_GPU_LOAD_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/model.h"

namespace vkserve {

// A model on one GPU and how many sessions run it there (>= 1).
struct ModelReplica {
  std::shared_ptr<const Model> model;
  int sessions = 1;
};

class GpuLoad {
 public:
  // `sessions[g]`: sessions of GPU g (each >= 1).
  explicit GpuLoad(std::vector<int> sessions);

  // The GPU to run on next: one with an idle session and the fewest busy
  // sessions, the lowest index on a tie; -1 when every session is busy.
  int Pick() const;
  // Every GPU Pick could return (an idle session, the fewest busy), in index
  // order; empty when every session is busy.
  std::vector<int> LeastBusy() const;
  // A session of `gpu` starts (Take) or ends (Give) a run.
  // REQUIRES: Take only when `gpu` has an idle session; Give after Take.
  void Take(int gpu);
  void Give(int gpu);

  int gpus() const { return static_cast<int>(sessions_.size()); }
  int busy(int gpu) const { return busy_[static_cast<size_t>(gpu)]; }
  int sessions(int gpu) const { return sessions_[static_cast<size_t>(gpu)]; }

 private:
  const std::vector<int> sessions_;
  std::vector<int> busy_;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SCHEDULING_GPU_LOAD_H_
