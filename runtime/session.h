// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Session: runs a Model on the GPU with IO binding. Each session owns its
// activation arena, its input/output buffers and its recorded command buffers
// — one per input-shape signature (and set of bound device buffers), replayed
// for every later run that matches (vkserve's graph capture). These
// per-signature states are charged to the model's CacheBudget, which frees
// the least recently used idle ones beyond it (runtime/exec/session_state.h). A
// model serves many sessions; a session runs one request at a time.
//
// Thread-compatible: a Session must not be used by two threads at once (the
// server's session pool guarantees this). Distinct sessions of one model run
// concurrently. What a run binds and returns: run_request.h.
#ifndef VKSERVE_RUNTIME_SESSION_H_
#define VKSERVE_RUNTIME_SESSION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/model.h"
#include "runtime/run_request.h"

namespace vkserve {

struct SessionState;
class SplitSessions;

struct SessionOptions {
  // Timestamp queries (needed for RunTiming::gpu_ns): around the run's
  // phases (upload copies, the model's dispatches, readback copies), and
  // around every dispatch in a profiled run (RunRequest::profile), whose
  // recording is then made separately. A timestamp waits for every earlier
  // command, so timing each dispatch costs GPU time of its own.
  bool timestamps = true;
  // Time every dispatch in every run, as a profile does: for an A/B of what
  // per-dispatch timestamps cost.
  bool time_each_dispatch = false;
  // A host output of at least this many bytes that is read through a
  // staging buffer into one destination (an OutputSink's one piece) is
  // copied out in chunks of readback_chunk_bytes, each as soon as the GPU
  // has staged it (gpu::Event), while the GPU stages the next: the host's
  // copy then overlaps the GPU's instead of following it (GPT-2 b8's 206 MB
  // of logits took 3.9 ms to stage and 6.5 ms to copy on the H200). 0: never.
  uint64_t overlapped_readback_bytes = uint64_t{32} << 20;
  uint64_t readback_chunk_bytes = uint64_t{16} << 20;
  // A host output of at least this many bytes that is read through a
  // staging buffer, with no sink taking it, comes back as a view of that
  // host-cached staging memory (RunOutput::host.data is a TensorBytes view
  // owning the buffer): the GPU's copy is the only one.
  // While a caller still holds such a view, the next run stages that output
  // in a new buffer and re-records, so drop results before the next run to
  // keep replaying; and, as with DeviceTensors, before the GPU runtime goes.
  // 0 (the default): always copy into bytes of the output's own. The server
  // leaves it off: it answers from a result while the session already runs
  // the next request, and its outputs go to sinks anyway.
  uint64_t view_readback_bytes = 0;
  // Stage host outputs even where device-local memory is host-readable
  // (lavapipe), so tests run the staged and chunked paths there.
  bool stage_outputs = false;
};

class Session {
 public:
  static absl::StatusOr<std::unique_ptr<Session>> Create(std::shared_ptr<const Model> model,
                                                         const SessionOptions& options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs the model. Every model input must be bound exactly once, with the
  // declared dtype and a shape matching the declared one (symbolic dims take
  // any size >= 1 unless overridden). INVALID_ARGUMENT names the problem
  // (unknown/missing input, dtype, rank, shape, byte size); a released
  // DeviceTensor is FAILED_PRECONDITION.
  absl::StatusOr<RunResult> Run(const RunRequest& request);
  // Run(), then `while_held` on the result while this session still holds
  // the run's buffers (kDeviceBorrowed outputs are valid only then); its
  // error is the run's.
  absl::StatusOr<RunResult> Run(const RunRequest& request,
                                const std::function<absl::Status(RunResult&)>& while_held);

  const Model& model() const { return *model_; }
  // Recordings made so far (one per shape signature and device binding set).
  size_t recording_count() const;
  // Per-signature states cached now (the model's budget evicts idle ones).
  size_t cached_state_count() const;

 private:
  struct Impl;
  explicit Session(std::shared_ptr<const Model> model);
  absl::StatusOr<RunResult> RunOnce(const RunRequest& request,
                                    const std::function<absl::Status(RunResult&)>* while_held);
  // This session's state for `plan`, cached or allocated, marked busy.
  absl::StatusOr<SessionState*> AcquireState(const std::shared_ptr<const Plan>& plan);
  std::shared_ptr<const Model> model_;
  std::unique_ptr<Impl> impl_;
  // For a model with a sync point (Model::sync_split): sessions of its
  // parts (sync_split.h), which Run() runs instead.
  std::unique_ptr<SplitSessions> split_;
};

// Writes `events` as a Chrome trace JSON array (opens in Perfetto).
absl::Status WriteChromeTrace(const std::vector<TraceEvent>& events, const std::string& path);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_SESSION_H_
