// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ModelManager: the models the server serves. It scans the repository
// (config/model_repository.h), loads every served version of every model onto
// the GPU (runtime Model with the config's free dimension overrides) and gives
// each version a Scheduler (scheduler.h) sized by its settings (sessions =
// instance count, queue policy): a DynamicBatcher when the config has
// dynamic_batching and max_batch_size > 0, else a SessionPool.
//
// Versions: every version the repository scan selects is served — the
// config's version_policy (default: the latest version only). A request that
// names no version gets the highest served version.
//
// Lifecycle of a model: absent -> LOADING -> READY -> UNLOADING -> absent, or
// LOADING -> UNAVAILABLE (failed, with the reason), or READY -> UNAVAILABLE
// (its GPU was lost) -> LOADING -> READY once the device is reopened. Unload removes the model
// from lookup first, then drains its schedulers (every accepted request is
// answered) before the GPU objects go. Requests in flight hold a
// shared_ptr<ServedModel>, so an unload never frees what a request uses.
//
// Reconcile() (SIGHUP, server/daemon/reloader.h) brings the loaded set in line with
// the repository without a gap in service: a changed model's new versions
// are loaded (and planned) while the old ones keep serving, swapped in under
// the lock, and the old ones drained only once no request holds them.
//
// ServedModel also keeps the Triton-style statistics of its version and
// records the same figures into its Prometheus ModelMetrics.
//
// What clients see of errors names files relative to the repository
// ("corrupt/1/model.onnx"), never the server's directories; the log keeps
// absolute paths.
//
// Thread-safe.
#ifndef VKSERVE_SERVER_MODELS_MODEL_MANAGER_H_
#define VKSERVE_SERVER_MODELS_MODEL_MANAGER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "config/model_config.h"
#include "config/model_repository.h"
#include "config/server_config.h"
#include "runtime/gpu_runtime.h"
#include "runtime/model.h"
#include "server/models/device_set.h"
#include "server/observability/metrics.h"
#include "server/scheduling/scheduler.h"

namespace vkserve {

// Cumulative statistics of one model version (ModelStatistics in the proto).
struct ModelStatsSnapshot {
  uint64_t success_count = 0, success_ns = 0;
  uint64_t fail_count = 0, fail_ns = 0;
  uint64_t queue_count = 0, queue_ns = 0;
  uint64_t compute_input_count = 0, compute_input_ns = 0;    // RunTiming.upload_ns
  uint64_t compute_infer_count = 0, compute_infer_ns = 0;    // record + submit + wait
  uint64_t compute_output_count = 0, compute_output_ns = 0;  // RunTiming.readback_ns
  uint64_t inference_count = 0;                              // a batch of n counts n
  uint64_t execution_count = 0;                              // a batch counts 1
  uint64_t last_inference_ms = 0;                            // ms since the epoch; 0 = never
  // Per batch size (InferBatchStatistics): executions and their compute
  // phases, as above.
  struct Batch {
    uint64_t count = 0;
    uint64_t compute_input_ns = 0, compute_infer_ns = 0, compute_output_ns = 0;
  };
  std::map<int64_t, Batch> batches;
};

// One loaded version of a model. Thread-safe.
class ServedModel {
 public:
  // `replicas`: the model loaded on each GPU it is served on (at least
  // one), in the scheduler's GPU order (ExecutionInfo::gpu). `metrics` may
  // be null (no Prometheus figures).
  ServedModel(std::string name, int64_t version, ModelSettings settings,
              std::vector<std::shared_ptr<const Model>> replicas,
              std::unique_ptr<Scheduler> scheduler, std::shared_ptr<ModelMetrics> metrics);

  const std::string& name() const { return name_; }
  int64_t version() const { return version_; }
  const ModelSettings& settings() const { return settings_; }
  // The model on its first GPU (every replica has the same inputs, outputs
  // and graph).
  const Model& model() const { return *replicas_.front(); }
  // The model on each GPU, by ExecutionInfo::gpu.
  const std::vector<std::shared_ptr<const Model>>& replicas() const { return replicas_; }
  // The device of GPU `gpu` (ExecutionInfo::gpu); the first for -1.
  const gpu::Device* device(int gpu) const;
  // The `gpu` metric label of each replica: its device's UUID, made unique
  // (" #2", ...) should two devices report one UUID.
  const std::vector<std::string>& gpus() const { return gpus_; }
  static std::vector<std::string> GpuLabels(
      const std::vector<std::shared_ptr<const Model>>& replicas);
  // Where requests go (the gRPC layer does not know which kind it is).
  Scheduler& scheduler() const { return *scheduler_; }

  // A request that ran: its end-to-end time, queue time, the run's timing,
  // the request's own batch size (1 without a batch dimension) and how it
  // ran (the GPU, cross-device copies).
  void RecordSuccess(uint64_t request_ns, uint64_t queue_ns, const RunTiming& timing,
                     int64_t batch_size, const ExecutionInfo& info);
  // A run of the model (ExecutionInfo::reports_execution): its batch size
  // (the requests' added up), timing and how long its oldest request waited
  // while the batch formed (and the zero rows padding it).
  void RecordExecution(int64_t batch_size, const RunTiming& timing, uint64_t forming_ns,
                       int64_t padding_rows = 0);
  // A request that failed (anywhere after it named this model).
  void RecordFailure(uint64_t request_ns, RequestOutcome outcome);
  ModelStatsSnapshot stats() const;

  // Nodes of the loaded graph (after fusion) by executing device. Every node
  // has a GPU kernel or the load fails, so cpu_nodes() is 0; it is counted
  // from the plan, not assumed.
  int gpu_nodes() const { return gpu_nodes_; }
  int cpu_nodes() const { return cpu_nodes_; }

 private:
  const std::string name_;
  const int64_t version_;
  const ModelSettings settings_;
  const std::vector<std::shared_ptr<const Model>> replicas_;
  const std::vector<std::string> gpus_;  // GpuLabels(replicas_)
  const std::unique_ptr<Scheduler> scheduler_;
  const std::shared_ptr<ModelMetrics> metrics_;
  int gpu_nodes_ = 0;
  int cpu_nodes_ = 0;
  mutable Mutex mutex_;
  ModelStatsSnapshot stats_ ABSL_GUARDED_BY(mutex_);
};

// One row of RepositoryIndex.
struct ModelIndexEntry {
  std::string name;
  std::string version;  // "" when the model has no loaded version
  std::string state;    // "READY", "LOADING", "UNLOADING", "UNAVAILABLE"
  std::string reason;
};

// What Reconcile() did, by model name.
struct ReconcileReport {
  std::vector<std::string> added, replaced, removed, unchanged;
  // "name: reason" for models that failed to load (a changed model's old
  // versions keep serving).
  std::vector<std::string> failed;
};

// Start-up progress: model `index` (1-based) of `count` starts loading.
using LoadProgress = std::function<void(int index, int count, const std::string& name)>;

class ModelManager {
 public:
  // `devices` and `metrics` (may be null) must outlive the manager.
  ModelManager(DeviceSet* devices, const ServerSettings& settings, Metrics* metrics = nullptr);
  ~ModelManager();  // waits for device recovery, then unloads everything (draining)

  // Start-up: scans the repository and loads every model (model_control
  // NONE) or the startup_models (EXPLICIT; empty = all). Returns the first
  // failure, prefixed with the model name; models that loaded stay loaded.
  // `progress`, if set, is called before each model's load.
  absl::Status LoadStartupModels(const LoadProgress& progress = nullptr);

  // Rescans the repository and applies what changed since the models were
  // loaded (a model's identity: its config file's bytes and the served
  // version files' paths, sizes and modification times):
  //  - a loaded model whose identity changed is replaced: the new versions
  //    load, and are warmed (a request of zeros at the default shapes on
  //    each session), while the old ones serve; then the new ones take every new
  //    request and the old ones are drained once the requests holding them
  //    finish (at most exit_timeout). A failed load leaves the old serving;
  //  - a loaded model gone from the repository is unloaded (drained);
  //  - model_control NONE: a model in the repository that is not loaded is
  //    loaded (EXPLICIT leaves that to RepositoryModelLoad).
  // Fails only when the repository cannot be read (nothing changes then).
  absl::StatusOr<ReconcileReport> Reconcile();

  // Rescans `name` in the repository and (re)loads it: a loaded model is
  // unloaded (drained) first. NOT_FOUND when the repository has no such
  // model; the load error otherwise (the model is then UNAVAILABLE). For a
  // client: paths in the error are relative to the repository.
  absl::Status Load(const std::string& name);

  // Unloads `name` after answering every accepted request. NOT_FOUND when
  // it is not loaded.
  absl::Status Unload(const std::string& name);

  // Unloads every model (used at shutdown).
  void UnloadAll();

  // Shutdown's first step: every served version stops taking requests
  // (UNAVAILABLE) and answers every accepted one, batches still forming
  // running at once. The models stay loaded until UnloadAll().
  void DrainAll();

  // The version to run: `version` "" = the highest served version. NOT_FOUND
  // naming the model (and version) when absent; UNAVAILABLE when it exists
  // but is not ready. INVALID_ARGUMENT for a version that is not a number.
  absl::StatusOr<std::shared_ptr<ServedModel>> Get(const std::string& name,
                                                   const std::string& version) const;

  // Every ready version of `name` ("" = of every model), by name then version.
  std::vector<std::shared_ptr<ServedModel>> List(const std::string& name = "") const;

  // Served versions of `name`, ascending.
  std::vector<int64_t> Versions(const std::string& name) const;

  // RepositoryIndex: every model in the repository (rescanned) and every
  // loaded one, with its state and (repository-relative) reason.
  // `ready_only` keeps the READY rows.
  std::vector<ModelIndexEntry> Index(bool ready_only) const;

  // Every device models run on (the server's, then those of device
  // selectors), with live memory by kind.
  std::vector<DeviceGaugeSample> DeviceMemory() const { return devices_->Memory(); }

  // A run of `model` failed with VK_ERROR_DEVICE_LOST (gpu::IsDeviceLost).
  // Every model on that device leaves service at once — UNAVAILABLE, with
  // the reason in RepositoryIndex — and a background recovery drains them
  // (their queued requests fail UNAVAILABLE), reopens the device and
  // reloads them from the repository. Returns at once; later reports of the
  // same device during its recovery are ignored.
  void OnDeviceLost(const ServedModel& model, int gpu);
  // Waits until no device recovery is running (tests, shutdown).
  void WaitForRecovery();
  // Test seam: called by a recovery after the models left service and
  // before the device is reopened. Set before serving.
  void set_before_reopen(std::function<void()> hook) { before_reopen_ = std::move(hook); }

 private:
  enum class State { kLoading, kReady, kUnloading, kUnavailable };
  struct Entry {
    State state = State::kLoading;
    std::string reason;
    std::map<int64_t, std::shared_ptr<ServedModel>> versions;
    std::string identity;  // of the repository entry the versions came from
  };
  absl::StatusOr<std::map<int64_t, std::shared_ptr<ServedModel>>> LoadVersions(
      const RepositoryModel& repo_model) const;
  // The devices of the config's placements, two selectors of one device
  // merged (their sessions added up), in the order first listed.
  absl::StatusOr<std::vector<std::pair<GpuContext, int>>> PlacementDevices(
      const ModelSettings& settings) const;
  absl::Status LoadModel(const RepositoryModel& repo_model);
  // Reconcile's replacement of a loaded model (see there).
  absl::Status ReplaceModel(const RepositoryModel& repo_model);
  // Drains `old` once no request holds its versions (or after exit_timeout).
  void Retire(std::map<int64_t, std::shared_ptr<ServedModel>> old) const;
  // Unload's work; REQUIRES: load_mutex_ held.
  absl::Status UnloadLocked(const std::string& name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(load_mutex_);
  static const char* StateName(State state);
  // `status` as a client may see it: the repository's directory left out of
  // every path ("<repository>" where it stands alone).
  absl::Status ForClient(const absl::Status& status) const;
  // Takes every model on the lost `device` out of service; the models to
  // reload and the versions to drain. REQUIRES: mutex_ held.
  void TakeOffDevice(const gpu::Device* device, const std::string& reason,
                     std::vector<std::string>* names,
                     std::vector<std::shared_ptr<ServedModel>>* drain)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The recovery thread's work: drain, reopen the device, reload.
  void Recover(const gpu::Device* device, std::vector<std::string> names,
               std::vector<std::shared_ptr<ServedModel>> drain);

  DeviceSet* const devices_;
  std::function<void()> before_reopen_;
  const ServerSettings settings_;
  // The repository's directory, absolute and with symbolic links resolved:
  // the forms a message may name it by. Longest first.
  const std::vector<std::string> repository_roots_;
  Metrics* const metrics_;
  Mutex load_mutex_;  // serializes Load/Unload (held while loading, not for lookups)
  mutable Mutex mutex_;
  std::map<std::string, Entry> models_ ABSL_GUARDED_BY(mutex_);
  // Devices lost and not yet recovered, and the threads recovering them.
  struct Recovery {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<const gpu::Device*> recovering_ ABSL_GUARDED_BY(mutex_);
  std::vector<Recovery> recovery_threads_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_MODELS_MODEL_MANAGER_H_
