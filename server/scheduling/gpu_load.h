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
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/model.h"
#include "runtime/session.h"

namespace vkserve {

// A model on one GPU and how many sessions run it there (>= 1).
struct ModelReplica {
  std::shared_ptr<const Model> model;
  int sessions = 1;
};

// Sessions per GPU of `replicas`; INVALID_ARGUMENT without a replica or
// with a replica of no session. `scheduler` names it in the message ("a
// pool").
absl::StatusOr<std::vector<int>> SessionsByGpu(const std::vector<ModelReplica>& replicas,
                                               std::string_view scheduler);

// Every replica's sessions on its GPU, in replica order.
struct ReplicaSessions {
  std::vector<std::unique_ptr<Session>> sessions;
  std::vector<int> gpu_of;  // per session: its replica's index
};
// Creates them, each run through `warmup` (a callable taking Session&,
// returning absl::Status) before the next is created: the first failure
// fails the whole.
template <typename Warmup>
absl::StatusOr<ReplicaSessions> CreateSessions(const std::vector<ModelReplica>& replicas,
                                               const SessionOptions& options,
                                               const Warmup& warmup) {
  ReplicaSessions made;
  for (size_t g = 0; g < replicas.size(); ++g) {
    for (int i = 0; i < replicas[g].sessions; ++i) {
      absl::StatusOr<std::unique_ptr<Session>> session =
          Session::Create(replicas[g].model, options);
      if (!session.ok()) return session.status();
      if (absl::Status warm = warmup(**session); !warm.ok()) return warm;
      made.sessions.push_back(*std::move(session));
      made.gpu_of.push_back(static_cast<int>(g));
    }
  }
  return made;
}

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
