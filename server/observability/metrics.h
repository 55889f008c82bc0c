// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Metrics: vkserve's Prometheus metrics, rendered in the text format for the
// scrape endpoint (server/http/metrics_endpoint.h). Every family is defined
// in metrics.cc; docs/observability.md lists them.
//
// Two kinds of figures:
//  - Events (histograms, counters) are recorded as requests finish, through
//    the ModelMetrics of the model version that ran them.
//  - Levels (gauges: sessions, queue depth, resident outputs, GPU memory,
//    nodes by device) are sampled when Prometheus scrapes, through a
//    GaugeSampler the server provides, so they are never stale.
//
// Thread-safe. A Metrics must outlive every ModelMetrics it hands out.
#ifndef VKSERVE_SERVER_OBSERVABILITY_METRICS_H_
#define VKSERVE_SERVER_OBSERVABILITY_METRICS_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "base/mutex.h"
#include "gpu/buffer.h"
#include "gpu/cache_budget.h"
#include "prometheus/labels.h"
#include "runtime/session.h"

namespace prometheus {
class Counter;
class Histogram;
class Registry;
template <typename T>
class Family;
}  // namespace prometheus

namespace vkserve {

// What the response buffer pool reports (server/grpc/output_buffer_pool.h).
struct OutputBufferPoolStats {
  uint64_t pooled_bytes = 0;  // capacity held for reuse now
  uint64_t pooled_buffers = 0;
  uint64_t reused = 0;     // Take calls served from the pool
  uint64_t allocated = 0;  // Take calls of at least min_bytes that allocated
  uint64_t dropped = 0;    // buffers given back but not kept (budget)
};

// How a request ended, the `outcome` label of vkserve_requests_total.
enum class RequestOutcome : uint8_t {
  kSuccess,
  kInvalidInput,  // the request was malformed or did not fit the model
  kTimeout,       // its deadline passed before it ran
  kQueueFull,     // the model's queue was full
  kCancelled,     // the client cancelled it before it ran
  kUnavailable,   // the model was unloading or the server shutting down
  kInternal,      // anything else: a server or GPU failure
};
inline constexpr int kRequestOutcomeCount = 7;
std::string_view RequestOutcomeName(RequestOutcome outcome);

// The outcome a failed request's status stands for (by status code).
RequestOutcome OutcomeOf(const absl::Status& status);

// The phases of vkserve_phase_duration_seconds, in RunTiming's terms.
enum class Phase : uint8_t { kQueue, kUpload, kRecord, kSubmit, kGpu, kWait, kReadback };
inline constexpr int kPhaseCount = 7;
std::string_view PhaseName(Phase phase);

// Gauge values of one model version at scrape time.
struct ModelGaugeSample {
  std::string model;
  std::string version;
  uint64_t sessions = 0;
  uint64_t sessions_busy = 0;
  uint64_t queue_depth = 0;
  uint64_t resident_outputs = 0;
  uint64_t resident_output_bytes = 0;
  uint64_t gpu_nodes = 0;
  uint64_t cpu_nodes = 0;
  // Per GPU the version runs on (the device UUID): its sessions, and how
  // many run a request now.
  struct Gpu {
    std::string gpu;
    uint64_t sessions = 0;
    uint64_t sessions_busy = 0;
  };
  std::vector<Gpu> gpus;
};

// Live device memory of one Vulkan device, by gpu::MemoryKind.
struct DeviceGaugeSample {
  std::string device;      // the name, made unique
  std::string gpu;         // the device UUID (gpu::DeviceInfo::uuid())
  CacheBudgetStats cache;  // the device's per-shape caches (plans, session states)
  std::array<uint64_t, gpu::kMemoryKindCount> bytes_by_kind{};
};

struct GaugeSample {
  std::vector<ModelGaugeSample> models;
  std::vector<DeviceGaugeSample> devices;
  OutputBufferPoolStats output_buffers;  // server-wide
};

// Called on the scraping thread; must be thread-safe and quick.
using GaugeSampler = std::function<GaugeSample()>;

// The event metrics of one model version. Thread-safe; obtained from
// Metrics::ForModel, and its series leave the exposition when the last
// reference goes (the model version was unloaded).
class ModelMetrics {
 public:
  ~ModelMetrics();
  ModelMetrics(const ModelMetrics&) = delete;
  ModelMetrics& operator=(const ModelMetrics&) = delete;

  // A successful inference: its end-to-end time, queue wait, the run's
  // phases (labelled with `gpu`, the UUID of the GPU that ran it; its
  // series are added on first use), and the request's batch size (>= 1).
  void RecordSuccess(uint64_t request_ns, uint64_t queue_ns, const RunTiming& timing,
                     int64_t batch_size, const std::string& gpu = "");
  // GPU-resident inputs copied from another GPU to `gpu` through the host.
  void RecordCrossDeviceCopies(const std::string& gpu, uint64_t copies, uint64_t bytes);
  // A model execution (one run, serving one request or a batch of them):
  // its batch size, bytes and command buffer use, and how long its oldest
  // request waited while the batch formed; and the zero rows padding it
  // (ExecutionInfo::padding_rows).
  void RecordExecution(int64_t batch_size, const RunTiming& timing, uint64_t forming_ns,
                       int64_t padding_rows = 0);
  // A failed request. REQUIRES: outcome != kSuccess.
  void RecordFailure(RequestOutcome outcome);

 private:
  friend class Metrics;
  ModelMetrics() = default;

  // The per-GPU series of one GPU.
  struct GpuSeries {
    std::array<prometheus::Histogram*, kPhaseCount> phases{};
    prometheus::Counter* copies = nullptr;
    prometheus::Counter* copy_bytes = nullptr;
  };
  // The series of `gpu`, added to the families on first use (a reload may
  // put the same version on more GPUs while its series live on).
  const GpuSeries& Gpu(const std::string& gpu);

  // Takes the series out of their families; given the per-GPU ones.
  std::function<void(const std::vector<GpuSeries>&)> remove_;
  // Adds one GPU's series to the families (takes the Metrics' lock).
  std::function<GpuSeries(const std::string&)> add_gpu_;
  Mutex gpu_mutex_;  // guards gpus_; taken before the Metrics' lock
  std::map<std::string, GpuSeries> gpus_ ABSL_GUARDED_BY(gpu_mutex_);  // never erased: stable

  prometheus::Histogram* request_ = nullptr;
  std::array<prometheus::Counter*, kRequestOutcomeCount> requests_{};
  prometheus::Counter* inferences_ = nullptr;
  prometheus::Counter* executions_ = nullptr;
  prometheus::Counter* padding_ = nullptr;
  prometheus::Counter* bytes_to_gpu_ = nullptr;
  prometheus::Counter* bytes_to_host_ = nullptr;
  prometheus::Histogram* batch_size_ = nullptr;
  prometheus::Histogram* batch_delay_ = nullptr;
  prometheus::Counter* runs_replayed_ = nullptr;
  prometheus::Counter* runs_recorded_ = nullptr;
  prometheus::Counter* sync_points_ = nullptr;
};

class Metrics {
 public:
  // `server_version` and `device` label vkserve_build_info. `sampler` (may
  // be empty: no per-model gauges) is called at every scrape.
  Metrics(const std::string& server_version, const std::string& device, GaugeSampler sampler);
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // The event metrics of `model` version `version`, shared by every caller
  // asking for the same version while one is alive. `gpus`: the UUIDs of
  // the GPUs it runs on, whose per-GPU series (label `gpu`) exist from now
  // on, also when the version's metrics were alive already.
  std::shared_ptr<ModelMetrics> ForModel(const std::string& model, int64_t version,
                                         const std::vector<std::string>& gpus = {});

  // Everything in the Prometheus text format (prometheus-cpp's
  // TextSerializer), as a scrape returns it after the endpoint's own
  // families. Thread-safe; samples the gauges.
  std::string Render() const;

 private:
  using ModelKey = std::pair<std::string, int64_t>;  // model, version
  // The version's ModelMetrics, alive or new (without per-GPU series).
  std::shared_ptr<ModelMetrics> ModelSeries(const std::string& model, int64_t version);
  // A model version's series on one GPU (`labels`: model and version).
  ModelMetrics::GpuSeries AddGpuSeries(const prometheus::Labels& labels, const std::string& gpu);
  // Removes the series of `model` (whose last owner is gone) unless a newer
  // ModelMetrics for its key is alive.
  void RemoveModelSeries(const ModelKey& key, const ModelMetrics& model,
                         const std::vector<ModelMetrics::GpuSeries>& gpus);

  class SampledGauges;
  struct Families;

  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<SampledGauges> gauges_;
  std::unique_ptr<Families> families_;

  Mutex mutex_;  // guards the families' Add/Remove and live_
  std::map<ModelKey, std::weak_ptr<ModelMetrics>> live_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_OBSERVABILITY_METRICS_H_
