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
// concurrently.
#ifndef VKSERVE_RUNTIME_SESSION_H_
#define VKSERVE_RUNTIME_SESSION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/device_tensor.h"
#include "runtime/ir/graph.h"
#include "runtime/model.h"

namespace vkserve {

struct SessionState;
class SplitSessions;

// Host bytes of one input, not owned: must stay valid during Run().
struct HostTensorView {
  DataType dtype = DataType::kUndefined;
  std::vector<int64_t> shape;
  std::span<const uint8_t> data;  // dense, row-major, little-endian
  // Instead of `data` (then left empty): the bytes as consecutive pieces,
  // each copied straight to its offset in the GPU-visible buffer. A batch
  // of requests binds each request's bytes as one piece, with no
  // concatenating copy on the host. Their sizes must add up to the shape's.
  std::vector<std::span<const uint8_t>> parts = {};
};

// Fills a host input's GPU-visible memory (dtype and shape give its size).
using HostInputReader = std::function<absl::Status(std::span<uint8_t>)>;

struct InputBinding {
  std::string name;
  // Exactly one of the two.
  HostTensorView host;
  std::shared_ptr<DeviceTensor> device;  // bound without a copy
};

// kDeviceBorrowed: a DeviceTensor viewing the session's own output buffer,
// with no new buffer (the recording stays valid); valid only inside
// Session::Run's `while_held` callback. For sync splits (sync_split.h).
enum class OutputLocation { kHost, kDevice, kDeviceBorrowed };

struct RunRequest {
  std::vector<InputBinding> inputs;
  // Per output name; outputs not listed use the session's default (host).
  std::map<std::string, OutputLocation> output_locations;
  // Collect a per-dispatch trace (RunResult::trace). The session records
  // such runs with a timestamp around every dispatch, apart from its
  // unprofiled recording: switching between the two re-records.
  bool profile = false;
  // Where host outputs' bytes go, optionally. Run() calls it once per host
  // output with the model output's index and byte size; a non-null result
  // must point to that many writable bytes, valid until Run() returns, and
  // receives the output in one copy out of GPU-visible memory (e.g. straight
  // into a response), leaving RunOutput::host.data empty and
  // RunOutput::in_sink set. nullptr: the bytes go to host.data as usual.
  std::function<uint8_t*(size_t output, uint64_t bytes)> host_output_sink;
  // Instead of host_output_sink, optionally: where a host output's bytes go
  // as consecutive pieces (a batch's requests each get their own slice).
  // Run() calls it once per host output with the output's index, shape and
  // byte size; a non-empty result must tile those bytes in order (sizes
  // adding up to `bytes`), each piece writable until Run() returns, or
  // with a null data() for bytes to skip (a padded batch's extra rows). The
  // output then has RunOutput::in_sink set. An empty result: as without.
  std::function<std::vector<std::span<uint8_t>>(size_t output, const std::vector<int64_t>& shape,
                                                uint64_t bytes)>
      host_output_scatter;
  // Host inputs whose bytes are read rather than viewed, by input name:
  // Run() calls the reader once with the input's GPU-visible memory instead
  // of copying host.data (left empty), and fails with the reader's error.
  // For bytes that must not be mapped, such as a client's shared-memory
  // object, which the client can shrink under a mapping
  // (server/models/shared_memory.h).
  std::map<std::string, HostInputReader> host_input_readers;
};

struct RunOutput {
  std::string name;
  DataType dtype = DataType::kUndefined;
  std::vector<int64_t> shape;
  HostTensor host;                       // for OutputLocation::kHost
  bool in_sink = false;                  // the bytes went to RunRequest::host_output_sink
  std::shared_ptr<DeviceTensor> device;  // for OutputLocation::kDevice
};

// Where one run's time went, in nanoseconds.
// upload + record + submit + wait + readback covers the whole Run() call
// (total_ns) but for a few instructions between them; gpu_ns overlaps
// submit and wait.
struct RunTiming {
  uint64_t upload_ns = 0;  // binding checks, host input bytes into GPU-visible buffers
  uint64_t record_ns = 0;  // command recording (0 when replayed)
  uint64_t submit_ns = 0;  // the vkQueueSubmit call
  uint64_t gpu_ns = 0;     // GPU execution, from timestamp queries
  // gpu_ns without the copies of inputs in and outputs out (staging to and
  // from host memory): the model's own GPU work, as a peer timing kernels on
  // GPU-resident tensors measures it.
  uint64_t gpu_compute_ns = 0;
  uint64_t wait_ns = 0;      // host blocked waiting for completion
  uint64_t readback_ns = 0;  // timestamp results and GPU output bytes to host memory
  uint64_t total_ns = 0;     // the whole Run() call
  bool replayed = false;     // used an existing recording
  // Times the run read data back mid-run: the output counts of nodes whose
  // output shapes depend on data (sync_split.h); 0 for most models.
  int sync_points = 0;
  uint64_t bytes_uploaded = 0;
  uint64_t bytes_read_back = 0;
};

// One span of a run for Chrome-trace profiles: host phases (category "host")
// and GPU dispatches (category "gpu", times on the GPU clock rebased so the
// first dispatch starts at the submit's host time).
struct TraceEvent {
  std::string name;       // node name, or the host phase
  std::string category;   // "host" or "gpu"
  std::string op_type;    // for GPU events
  std::string shapes;     // "float[1,3,224,224] -> float[1,32,112,112]"
  uint64_t start_ns = 0;  // relative to the start of Run()
  uint64_t duration_ns = 0;
};

struct RunResult {
  std::vector<RunOutput> outputs;  // in the model's output order
  RunTiming timing;
  std::vector<TraceEvent> trace;  // when RunRequest::profile
};

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
  // staging buffer, into a RunRequest::host_output_sink, is copied out in
  // chunks of readback_chunk_bytes, each as soon as the GPU has staged it
  // (gpu::Event), while the GPU stages the next: the host's copy then
  // overlaps the GPU's instead of following it (GPT-2 b8's 206 MB of logits
  // took 3.9 ms to stage and 6.5 ms to copy on the H200). 0: never.
  uint64_t overlapped_readback_bytes = uint64_t{32} << 20;
  uint64_t readback_chunk_bytes = uint64_t{16} << 20;
  // A host output of at least this many bytes that is read through a
  // staging buffer, with no sink or scatter in the request, comes back as a
  // view of that host-cached staging memory (RunOutput::host.data is a
  // TensorBytes view owning the buffer): the GPU's copy is the only one.
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
