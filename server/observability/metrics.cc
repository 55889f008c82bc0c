// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Every Prometheus family vkserve exports is defined in this file.
#include "server/observability/metrics.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "base/host_heap.h"
#include "prometheus/collectable.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/metric_family.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"

namespace vkserve {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

// 10 µs .. 10 s in 1-2.5-5 steps: fine enough for a 50 µs replayed run on an
// H100 and for a multi-second model on lavapipe.
const prometheus::Histogram::BucketBoundaries& DurationBuckets() {
  static const auto* buckets = new prometheus::Histogram::BucketBoundaries{
      10e-6, 25e-6, 50e-6,  100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3,
      25e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1.0,    2.5,  5.0,    10.0};
  return *buckets;
}

// Batch sizes: powers of two up to 1024, the largest a config is likely to
// allow (a larger batch lands in +Inf).
const prometheus::Histogram::BucketBoundaries& BatchSizeBuckets() {
  static const auto* buckets =
      new prometheus::Histogram::BucketBoundaries{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  return *buckets;
}

double Seconds(uint64_t ns) { return static_cast<double>(ns) * 1e-9; }

ClientMetric GaugeValue(std::vector<ClientMetric::Label> labels, double value) {
  ClientMetric m;
  m.label = std::move(labels);
  m.gauge.value = value;
  return m;
}

MetricFamily GaugeFamily(const char* name, const char* help) {
  MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = MetricType::Gauge;
  return f;
}

// One device's cache figures into the cache families.
void AddCacheSample(const DeviceGaugeSample& d, MetricFamily* bytes, MetricFamily* budget,
                    MetricFamily* entries, MetricFamily* evictions) {
  const CacheBudgetStats& c = d.cache;
  for (const auto& [memory, used, limit] :
       {std::tuple{"device", c.device_bytes, c.limits.device_bytes},
        std::tuple{"host", c.host_bytes, c.limits.host_bytes}}) {
    bytes->metric.push_back(GaugeValue({{"device", d.device}, {"gpu", d.gpu}, {"memory", memory}},
                                       static_cast<double>(used)));
    budget->metric.push_back(GaugeValue({{"device", d.device}, {"gpu", d.gpu}, {"memory", memory}},
                                        static_cast<double>(limit)));
  }
  for (int k = 0; k < kCacheKindCount; ++k) {
    const CacheKindStats& s = c.by_kind[k];
    const std::vector<ClientMetric::Label> labels{
        {"device", d.device}, {"gpu", d.gpu}, {"kind", CacheKindName(static_cast<CacheKind>(k))}};
    entries->metric.push_back(GaugeValue(labels, static_cast<double>(s.entries)));
    ClientMetric evicted;
    evicted.label = labels;
    evicted.counter.value = static_cast<double>(s.evictions);
    evictions->metric.push_back(std::move(evicted));
  }
}

}  // namespace

std::string_view RequestOutcomeName(RequestOutcome outcome) {
  switch (outcome) {
    case RequestOutcome::kSuccess:
      return "success";
    case RequestOutcome::kInvalidInput:
      return "invalid_input";
    case RequestOutcome::kTimeout:
      return "timeout";
    case RequestOutcome::kQueueFull:
      return "queue_full";
    case RequestOutcome::kCancelled:
      return "cancelled";
    case RequestOutcome::kUnavailable:
      return "unavailable";
    case RequestOutcome::kInternal:
      return "internal";
  }
  return "internal";
}

RequestOutcome OutcomeOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return RequestOutcome::kSuccess;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:            // an unknown handle or shm region
    case absl::StatusCode::kFailedPrecondition:  // a released GPU-resident input
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kUnimplemented:
      return RequestOutcome::kInvalidInput;
    case absl::StatusCode::kDeadlineExceeded:
      return RequestOutcome::kTimeout;
    case absl::StatusCode::kResourceExhausted:
      return RequestOutcome::kQueueFull;
    case absl::StatusCode::kCancelled:
      return RequestOutcome::kCancelled;
    case absl::StatusCode::kUnavailable:
      return RequestOutcome::kUnavailable;
    default:
      return RequestOutcome::kInternal;
  }
}

std::string_view PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kQueue:
      return "queue";
    case Phase::kUpload:
      return "upload";
    case Phase::kRecord:
      return "record";
    case Phase::kSubmit:
      return "submit";
    case Phase::kGpu:
      return "gpu";
    case Phase::kWait:
      return "wait";
    case Phase::kReadback:
      return "readback";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------
// The event families.

struct Metrics::Families {
  explicit Families(prometheus::Registry& r)
      : request(prometheus::BuildHistogram()
                    .Name("vkserve_request_duration_seconds")
                    .Help("Successful inferences: from receiving the request to the response being "
                          "ready.")
                    .Register(r)),
        phase(
            prometheus::BuildHistogram()
                .Name("vkserve_phase_duration_seconds")
                .Help("Successful inferences by phase: queue (waiting for a session or a batch), "
                      "upload "
                      "(inputs to GPU memory), record (command recording, 0 when replayed), submit "
                      "(vkQueueSubmit), gpu (GPU execution, timestamp queries), wait (host waiting "
                      "for completion), readback (outputs to host memory).")
                .Register(r)),
        requests(prometheus::BuildCounter()
                     .Name("vkserve_requests_total")
                     .Help("Inference requests by outcome.")
                     .Register(r)),
        inferences(prometheus::BuildCounter()
                       .Name("vkserve_inferences_total")
                       .Help("Inferences run; a request of batch size n counts n.")
                       .Register(r)),
        executions(
            prometheus::BuildCounter()
                .Name("vkserve_executions_total")
                .Help("Model executions (runs); a dynamic batch of several requests counts 1.")
                .Register(r)),
        padding(prometheus::BuildCounter()
                    .Name("vkserve_batch_padding_rows_total")
                    .Help("Zero rows added to dynamic batches to run them at a batch size "
                          "whose plan was built while their own size was planned; not "
                          "counted in vkserve_batch_size or vkserve_inferences_total.")
                    .Register(r)),
        bytes(prometheus::BuildCounter()
                  .Name("vkserve_transferred_bytes_total")
                  .Help("Tensor bytes copied between host and GPU memory, by direction.")
                  .Register(r)),
        batch_size(prometheus::BuildHistogram()
                       .Name("vkserve_batch_size")
                       .Help("Model executions by batch size: the batch dimensions of the "
                             "requests run together, added up (1 without a batch dimension).")
                       .Register(r)),
        batch_delay(prometheus::BuildHistogram()
                        .Name("vkserve_batch_queue_delay_seconds")
                        .Help("Model executions by how long their oldest request waited in the "
                              "queue while the batch formed.")
                        .Register(r)),
        runs(prometheus::BuildCounter()
                 .Name("vkserve_runs_total")
                 .Help("Executions by whether they replayed a recorded command buffer or recorded "
                       "one.")
                 .Register(r)),
        sync_points(
            prometheus::BuildCounter()
                .Name("vkserve_plan_sync_points_total")
                .Help("Mid-run readbacks of a data-dependent output count (NonZero, Compress): "
                      "a model cut at a sync point reads one per cut and execution, then runs "
                      "the rest planned for that shape.")
                .Register(r)),
        cross_copies(
            prometheus::BuildCounter()
                .Name("vkserve_cross_device_copies_total")
                .Help("GPU-resident inputs held by another GPU, copied through host memory "
                      "to the GPU (label gpu) that ran the request.")
                .Register(r)),
        cross_bytes(
            prometheus::BuildCounter()
                .Name("vkserve_cross_device_copy_bytes_total")
                .Help("Bytes of the cross-device copies (vkserve_cross_device_copies_total).")
                .Register(r)),
        build(prometheus::BuildGauge()
                  .Name("vkserve_build_info")
                  .Help("Always 1: the server's version and Vulkan device.")
                  .Register(r)) {}

  prometheus::Family<prometheus::Histogram>& request;
  prometheus::Family<prometheus::Histogram>& phase;
  prometheus::Family<prometheus::Counter>& requests;
  prometheus::Family<prometheus::Counter>& inferences;
  prometheus::Family<prometheus::Counter>& executions;
  prometheus::Family<prometheus::Counter>& padding;
  prometheus::Family<prometheus::Counter>& bytes;
  prometheus::Family<prometheus::Histogram>& batch_size;
  prometheus::Family<prometheus::Histogram>& batch_delay;
  prometheus::Family<prometheus::Counter>& runs;
  prometheus::Family<prometheus::Counter>& sync_points;
  prometheus::Family<prometheus::Counter>& cross_copies;
  prometheus::Family<prometheus::Counter>& cross_bytes;
  prometheus::Family<prometheus::Gauge>& build;
};

// ---------------------------------------------------------------------------
// The sampled gauges: built fresh from the server's state at every scrape.

class Metrics::SampledGauges final : public prometheus::Collectable {
 public:
  explicit SampledGauges(GaugeSampler sampler) : sampler_(std::move(sampler)) {}

  std::vector<MetricFamily> Collect() const override {
    std::vector<MetricFamily> out{HostHeapFamily()};
    if (!sampler_) return out;
    const GaugeSample sample = sampler_();
    MetricFamily sessions = GaugeFamily("vkserve_sessions", "Sessions in the model's pool.");
    MetricFamily busy = GaugeFamily("vkserve_sessions_busy", "Sessions running a request now.");
    MetricFamily queue = GaugeFamily("vkserve_queue_depth", "Requests waiting for a session.");
    MetricFamily resident =
        GaugeFamily("vkserve_resident_outputs", "GPU-resident outputs (handles) held.");
    MetricFamily resident_bytes = GaugeFamily("vkserve_resident_output_bytes",
                                              "Bytes of GPU memory held by GPU-resident outputs.");
    MetricFamily nodes = GaugeFamily(
        "vkserve_model_nodes",
        "Graph nodes (after fusion) by the device that executes them; cpu is always 0.");
    MetricFamily gpu_sessions =
        GaugeFamily("vkserve_gpu_sessions", "The model's sessions on each GPU.");
    MetricFamily gpu_busy = GaugeFamily(
        "vkserve_gpu_sessions_busy",
        "The model's sessions running a request now, on each GPU (busy fraction: divide by "
        "vkserve_gpu_sessions).");
    MetricFamily memory =
        GaugeFamily("vkserve_gpu_memory_bytes", "Live GPU memory by what it holds.");
    MetricFamily cache_bytes =
        GaugeFamily("vkserve_cache_bytes",
                    "Bytes held by the per-shape caches (plans, session states), by memory.");
    MetricFamily cache_budget =
        GaugeFamily("vkserve_cache_budget_bytes", "The caches' budget by memory; 0 is unlimited.");
    MetricFamily cache_entries =
        GaugeFamily("vkserve_cache_entries", "Entries in the per-shape caches.");
    MetricFamily cache_evictions = GaugeFamily("vkserve_cache_evictions_total",
                                               "Cache entries evicted to stay within the budget.");
    cache_evictions.type = MetricType::Counter;
    for (const ModelGaugeSample& m : sample.models) {
      const std::vector<ClientMetric::Label> labels{{"model", m.model}, {"version", m.version}};
      sessions.metric.push_back(GaugeValue(labels, static_cast<double>(m.sessions)));
      busy.metric.push_back(GaugeValue(labels, static_cast<double>(m.sessions_busy)));
      queue.metric.push_back(GaugeValue(labels, static_cast<double>(m.queue_depth)));
      resident.metric.push_back(GaugeValue(labels, static_cast<double>(m.resident_outputs)));
      resident_bytes.metric.push_back(
          GaugeValue(labels, static_cast<double>(m.resident_output_bytes)));
      auto with_device = [&](const char* device) {
        auto l = labels;
        l.push_back({"device", device});
        return l;
      };
      nodes.metric.push_back(GaugeValue(with_device("gpu"), static_cast<double>(m.gpu_nodes)));
      nodes.metric.push_back(GaugeValue(with_device("cpu"), static_cast<double>(m.cpu_nodes)));
      for (const ModelGaugeSample::Gpu& g : m.gpus) {
        auto on_gpu = labels;
        on_gpu.push_back({"gpu", g.gpu});
        gpu_sessions.metric.push_back(GaugeValue(on_gpu, static_cast<double>(g.sessions)));
        gpu_busy.metric.push_back(GaugeValue(on_gpu, static_cast<double>(g.sessions_busy)));
      }
    }
    for (const DeviceGaugeSample& d : sample.devices) {
      for (int k = 0; k < gpu::kMemoryKindCount; ++k) {
        const std::string kind(gpu::MemoryKindName(static_cast<gpu::MemoryKind>(k)));
        memory.metric.push_back(GaugeValue({{"device", d.device}, {"gpu", d.gpu}, {"kind", kind}},
                                           static_cast<double>(d.bytes_by_kind[k])));
      }
      AddCacheSample(d, &cache_bytes, &cache_budget, &cache_entries, &cache_evictions);
    }
    for (MetricFamily* f :
         {&sessions, &busy, &gpu_sessions, &gpu_busy, &queue, &resident, &resident_bytes, &nodes,
          &memory, &cache_bytes, &cache_budget, &cache_entries, &cache_evictions}) {
      if (!f->metric.empty()) out.push_back(std::move(*f));
    }
    OutputBufferFamilies(sample.output_buffers, &out);
    return out;
  }

 private:
  static void OutputBufferFamilies(const OutputBufferPoolStats& s, std::vector<MetricFamily>* out) {
    MetricFamily pooled =
        GaugeFamily("vkserve_output_buffer_pool_bytes",
                    "Host bytes of sent responses' output buffers kept for reuse.");
    pooled.metric.push_back(GaugeValue({}, static_cast<double>(s.pooled_bytes)));
    MetricFamily takes = GaugeFamily("vkserve_output_buffers_total",
                                     "Output buffers of at least 1 MiB: reused from the pool, "
                                     "newly allocated, or dropped past its budget.");
    takes.type = MetricType::Counter;
    for (const auto& [result, n] :
         {std::pair{"reused", s.reused}, std::pair{"allocated", s.allocated},
          std::pair{"dropped", s.dropped}}) {
      ClientMetric m;
      m.label = {{"result", result}};
      m.counter.value = static_cast<double>(n);
      takes.metric.push_back(std::move(m));
    }
    out->push_back(std::move(pooled));
    out->push_back(std::move(takes));
  }

  // Not per model: what malloc holds tells host-memory growth from heap
  // fragmentation (free bytes held) apart from live data (in use).
  static MetricFamily HostHeapFamily() {
    MetricFamily heap =
        GaugeFamily("vkserve_host_heap_bytes",
                    "The process's malloc heap: in use, freed but held, and live mmapped blocks.");
    const HostHeapStats stats = ReadHostHeap();
    heap.metric.push_back(GaugeValue({{"state", "in_use"}}, static_cast<double>(stats.in_use)));
    heap.metric.push_back(GaugeValue({{"state", "free"}}, static_cast<double>(stats.free)));
    heap.metric.push_back(GaugeValue({{"state", "mmapped"}}, static_cast<double>(stats.mmapped)));
    return heap;
  }

  const GaugeSampler sampler_;
};

// ---------------------------------------------------------------------------

ModelMetrics::~ModelMetrics() {
  std::vector<GpuSeries> gpus;
  {
    MutexLock lock(&gpu_mutex_);
    for (const auto& [label, series] : gpus_) gpus.push_back(series);
  }
  if (remove_) remove_(gpus);
}

const ModelMetrics::GpuSeries& ModelMetrics::Gpu(const std::string& gpu) {
  MutexLock lock(&gpu_mutex_);
  auto it = gpus_.find(gpu);
  if (it == gpus_.end()) it = gpus_.emplace(gpu, add_gpu_(gpu)).first;
  return it->second;
}

void ModelMetrics::RecordSuccess(uint64_t request_ns, uint64_t queue_ns, const RunTiming& timing,
                                 int64_t batch_size, const std::string& gpu) {
  request_->Observe(Seconds(request_ns));
  const std::array<uint64_t, kPhaseCount> ns{queue_ns,          timing.upload_ns, timing.record_ns,
                                             timing.submit_ns,  timing.gpu_ns,    timing.wait_ns,
                                             timing.readback_ns};
  const auto& phases = Gpu(gpu).phases;
  for (int p = 0; p < kPhaseCount; ++p) phases[p]->Observe(Seconds(ns[p]));
  requests_[static_cast<int>(RequestOutcome::kSuccess)]->Increment();
  inferences_->Increment(static_cast<double>(batch_size < 1 ? 1 : batch_size));
}

void ModelMetrics::RecordExecution(int64_t batch_size, const RunTiming& timing, uint64_t forming_ns,
                                   int64_t padding_rows) {
  executions_->Increment();
  if (padding_rows > 0) padding_->Increment(static_cast<double>(padding_rows));
  batch_size_->Observe(static_cast<double>(batch_size < 1 ? 1 : batch_size));
  batch_delay_->Observe(Seconds(forming_ns));
  bytes_to_gpu_->Increment(static_cast<double>(timing.bytes_uploaded));
  bytes_to_host_->Increment(static_cast<double>(timing.bytes_read_back));
  (timing.replayed ? runs_replayed_ : runs_recorded_)->Increment();
  if (timing.sync_points > 0) sync_points_->Increment(static_cast<double>(timing.sync_points));
}

void ModelMetrics::RecordCrossDeviceCopies(const std::string& gpu, uint64_t copies,
                                           uint64_t bytes) {
  if (copies == 0) return;
  const GpuSeries& series = Gpu(gpu);
  series.copies->Increment(static_cast<double>(copies));
  series.copy_bytes->Increment(static_cast<double>(bytes));
}

void ModelMetrics::RecordFailure(RequestOutcome outcome) {
  requests_[static_cast<int>(outcome)]->Increment();
}

Metrics::Metrics(const std::string& server_version, const std::string& device, GaugeSampler sampler)
    : registry_(std::make_shared<prometheus::Registry>()),
      gauges_(std::make_shared<SampledGauges>(std::move(sampler))),
      families_(std::make_unique<Families>(*registry_)) {
  families_->build.Add({{"version", server_version}, {"device", device}}).Set(1);
}

Metrics::~Metrics() {
  MutexLock lock(&mutex_);
  // Every ModelMetrics must be gone: their series point into our families.
  for (const auto& [key, weak] : live_) {
    if (!weak.expired()) {
      std::fprintf(stderr, "Metrics destroyed while model '%s' v%lld still records into it\n",
                   key.first.c_str(), static_cast<long long>(key.second));
      std::abort();
    }
  }
}

std::shared_ptr<ModelMetrics> Metrics::ForModel(const std::string& model, int64_t version,
                                                const std::vector<std::string>& gpus) {
  std::shared_ptr<ModelMetrics> m = ModelSeries(model, version);
  // Outside the lock: Gpu() takes it to add series.
  if (gpus.empty()) m->Gpu("");
  for (const std::string& gpu : gpus) m->Gpu(gpu);
  return m;
}

std::shared_ptr<ModelMetrics> Metrics::ModelSeries(const std::string& model, int64_t version) {
  MutexLock lock(&mutex_);
  const ModelKey key(model, version);
  if (auto it = live_.find(key); it != live_.end()) {
    if (auto alive = it->second.lock()) return alive;
  }
  const prometheus::Labels labels{{"model", model}, {"version", absl::StrCat(version)}};
  auto with = [&](const char* name, std::string_view value) {
    prometheus::Labels l = labels;
    l.emplace(name, std::string(value));
    return l;
  };
  Families& f = *families_;
  auto m = std::shared_ptr<ModelMetrics>(new ModelMetrics());
  m->request_ = &f.request.Add(labels, DurationBuckets());
  m->add_gpu_ = [this, labels](const std::string& gpu) { return AddGpuSeries(labels, gpu); };
  for (int o = 0; o < kRequestOutcomeCount; ++o) {
    m->requests_[o] =
        &f.requests.Add(with("outcome", RequestOutcomeName(static_cast<RequestOutcome>(o))));
  }
  m->inferences_ = &f.inferences.Add(labels);
  m->executions_ = &f.executions.Add(labels);
  m->padding_ = &f.padding.Add(labels);
  m->bytes_to_gpu_ = &f.bytes.Add(with("direction", "host_to_gpu"));
  m->bytes_to_host_ = &f.bytes.Add(with("direction", "gpu_to_host"));
  m->batch_size_ = &f.batch_size.Add(labels, BatchSizeBuckets());
  m->batch_delay_ = &f.batch_delay.Add(labels, DurationBuckets());
  m->runs_replayed_ = &f.runs.Add(with("command_buffer", "replayed"));
  m->runs_recorded_ = &f.runs.Add(with("command_buffer", "recorded"));
  m->sync_points_ = &f.sync_points.Add(labels);
  m->remove_ = [this, key, raw = m.get()](const std::vector<ModelMetrics::GpuSeries>& gpus) {
    RemoveModelSeries(key, *raw, gpus);
  };
  live_[key] = m;
  return m;
}

ModelMetrics::GpuSeries Metrics::AddGpuSeries(const prometheus::Labels& labels,
                                              const std::string& gpu) {
  prometheus::Labels on_gpu = labels;
  on_gpu.emplace("gpu", gpu);
  MutexLock lock(&mutex_);
  Families& f = *families_;
  ModelMetrics::GpuSeries series;
  for (int p = 0; p < kPhaseCount; ++p) {
    prometheus::Labels l = on_gpu;
    l.emplace("phase", std::string(PhaseName(static_cast<Phase>(p))));
    series.phases[p] = &f.phase.Add(l, DurationBuckets());
  }
  series.copies = &f.cross_copies.Add(on_gpu);
  series.copy_bytes = &f.cross_bytes.Add(on_gpu);
  return series;
}

void Metrics::RemoveModelSeries(const ModelKey& key, const ModelMetrics& model,
                                const std::vector<ModelMetrics::GpuSeries>& gpus) {
  MutexLock lock(&mutex_);
  // A newer ModelMetrics for the same version may have replaced this one
  // in live_ only after this one expired; then the series are its own.
  if (auto it = live_.find(key); it != live_.end()) {
    if (!it->second.expired()) return;
    live_.erase(it);
  }
  Families& f = *families_;
  f.request.Remove(model.request_);
  for (const ModelMetrics::GpuSeries& g : gpus) {
    for (auto* h : g.phases) f.phase.Remove(h);
    f.cross_copies.Remove(g.copies);
    f.cross_bytes.Remove(g.copy_bytes);
  }
  for (auto* c : model.requests_) f.requests.Remove(c);
  f.inferences.Remove(model.inferences_);
  f.executions.Remove(model.executions_);
  f.padding.Remove(model.padding_);
  f.bytes.Remove(model.bytes_to_gpu_);
  f.bytes.Remove(model.bytes_to_host_);
  f.batch_size.Remove(model.batch_size_);
  f.batch_delay.Remove(model.batch_delay_);
  f.runs.Remove(model.runs_replayed_);
  f.runs.Remove(model.runs_recorded_);
  f.sync_points.Remove(model.sync_points_);
}

std::string Metrics::Render() const {
  std::vector<MetricFamily> families = registry_->Collect();
  std::vector<MetricFamily> sampled = gauges_->Collect();
  families.insert(families.end(), std::make_move_iterator(sampled.begin()),
                  std::make_move_iterator(sampled.end()));
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace vkserve
