// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/models/model_manager.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "runtime/ir/data_type.h"
#include "server/scheduling/dynamic_batcher.h"
#include "server/scheduling/model_tensors.h"
#include "server/scheduling/session_pool.h"
#include "server/scheduling/warmup_runs.h"
#include "spdlog/spdlog.h"

namespace vkserve {

ServedModel::ServedModel(std::string name, int64_t version, ModelSettings settings,
                         std::vector<std::shared_ptr<const Model>> replicas,
                         std::unique_ptr<Scheduler> scheduler,
                         std::shared_ptr<ModelMetrics> metrics)
    : name_(std::move(name)),
      version_(version),
      settings_(std::move(settings)),
      replicas_(std::move(replicas)),
      gpus_(GpuLabels(replicas_)),
      scheduler_(std::move(scheduler)),
      metrics_(std::move(metrics)) {
  const Model& model = *replicas_.front();
  auto report = model.Inspect();
  if (report.ok()) {
    gpu_nodes_ = report->gpu_nodes;
    cpu_nodes_ = report->cpu_nodes;
  } else {
    // The plan at default shapes was made at load; failing now is a bug.
    gpu_nodes_ = static_cast<int>(model.graph().nodes.size());
  }
}

const gpu::Device* ServedModel::device(int gpu) const {
  const size_t g =
      gpu >= 0 && static_cast<size_t>(gpu) < replicas_.size() ? static_cast<size_t>(gpu) : 0;
  return replicas_[g]->gpu().device;
}

std::vector<std::string> ServedModel::GpuLabels(
    const std::vector<std::shared_ptr<const Model>>& replicas) {
  std::vector<std::string> labels;
  for (const auto& r : replicas) {
    const std::string uuid = r->gpu().device->info().uuid();
    const auto same = std::count_if(labels.begin(), labels.end(),
                                    [&](const std::string& l) { return l.rfind(uuid, 0) == 0; });
    labels.push_back(same == 0 ? uuid : absl::StrCat(uuid, " #", same + 1));
  }
  return labels;
}

void ServedModel::RecordSuccess(uint64_t request_ns, uint64_t queue_ns, const RunTiming& timing,
                                int64_t batch_size, const ExecutionInfo& info) {
  MutexLock lock(&mutex_);
  ++stats_.success_count;
  stats_.success_ns += request_ns;
  ++stats_.queue_count;
  stats_.queue_ns += queue_ns;
  ++stats_.compute_input_count;
  stats_.compute_input_ns += timing.upload_ns;
  ++stats_.compute_infer_count;
  stats_.compute_infer_ns += timing.record_ns + timing.submit_ns + timing.wait_ns;
  ++stats_.compute_output_count;
  stats_.compute_output_ns += timing.readback_ns;
  stats_.inference_count += static_cast<uint64_t>(std::max<int64_t>(batch_size, 1));
  stats_.last_inference_ms = static_cast<uint64_t>(absl::ToUnixMillis(absl::Now()));
  if (metrics_ != nullptr) {
    // A request that did not run on a known GPU (-1) cannot succeed; the
    // first GPU's label keeps the lookup in range all the same.
    const bool known = info.gpu >= 0 && static_cast<size_t>(info.gpu) < gpus_.size();
    const std::string& gpu = gpus_[known ? static_cast<size_t>(info.gpu) : 0];
    metrics_->RecordSuccess(request_ns, queue_ns, timing, batch_size, gpu);
    metrics_->RecordCrossDeviceCopies(gpu, info.cross_device_copies, info.cross_device_bytes);
  }
}

void ServedModel::RecordExecution(int64_t batch_size, const RunTiming& timing, uint64_t forming_ns,
                                  int64_t padding_rows) {
  {
    MutexLock lock(&mutex_);
    ++stats_.execution_count;
    ModelStatsSnapshot::Batch& batch = stats_.batches[std::max<int64_t>(batch_size, 1)];
    ++batch.count;
    batch.compute_input_ns += timing.upload_ns;
    batch.compute_infer_ns += timing.record_ns + timing.submit_ns + timing.wait_ns;
    batch.compute_output_ns += timing.readback_ns;
  }
  if (metrics_ != nullptr) metrics_->RecordExecution(batch_size, timing, forming_ns, padding_rows);
}

void ServedModel::RecordFailure(uint64_t request_ns, RequestOutcome outcome) {
  {
    MutexLock lock(&mutex_);
    ++stats_.fail_count;
    stats_.fail_ns += request_ns;
  }
  if (metrics_ != nullptr) metrics_->RecordFailure(outcome);
}

ModelStatsSnapshot ServedModel::stats() const {
  MutexLock lock(&mutex_);
  return stats_;
}

namespace {

std::vector<std::string> RepositoryRoots(const std::string& configured) {
  namespace fs = std::filesystem;
  std::vector<std::string> roots;
  auto add = [&](std::string root) {
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    if (!root.empty() && root != "/" &&
        std::find(roots.begin(), roots.end(), root) == roots.end()) {
      roots.push_back(std::move(root));
    }
  };
  // config/ names files under the absolute, normalized root; runtime/ may
  // resolve symbolic links.
  std::error_code ec;
  const fs::path absolute = fs::absolute(configured, ec).lexically_normal();
  if (!ec) add(absolute.string());
  const fs::path canonical = fs::weakly_canonical(configured, ec);
  if (!ec) add(canonical.string());
  std::sort(roots.begin(), roots.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return roots;
}

// The dynamic batcher for a model with dynamic_batching and a batch
// dimension; otherwise the pool, which runs each request alone. Either runs
// each replica's sessions on its GPU.
// `warmup` (may be null) runs on every session before the scheduler serves.
absl::StatusOr<std::unique_ptr<Scheduler>> MakeScheduler(std::vector<ModelReplica> replicas,
                                                         const ModelSettings& settings,
                                                         std::shared_ptr<const WarmupRuns> warmup) {
  if (settings.dynamic_batching && settings.max_batch_size > 0) {
    ASSIGN_OR_RETURN(auto batcher,
                     DynamicBatcher::Create(std::move(replicas), settings, {}, std::move(warmup)));
    return std::unique_ptr<Scheduler>(std::move(batcher));
  }
  SessionPoolOptions options;
  options.name = settings.name;
  options.max_queue = static_cast<int>(std::clamp<int64_t>(settings.max_queue_size, 0, 1 << 30));
  options.default_timeout = settings.default_timeout;
  options.allow_timeout_override = settings.allow_timeout_override;
  options.warmup = std::move(warmup);
  ASSIGN_OR_RETURN(auto pool, SessionPool::Create(std::move(replicas), options));
  return std::unique_ptr<Scheduler>(std::move(pool));
}

// What identifies a repository entry for Reconcile: the config file's bytes
// and each served version's file (path, size, modification time). Reading
// the config is cheap; model files are not read.
std::string Identity(const RepositoryModel& m) {
  namespace fs = std::filesystem;
  std::string id = m.status.ok() ? "ok\n" : absl::StrCat("error: ", m.status.message(), "\n");
  if (m.has_config_file) {
    std::ifstream in(fs::path(m.directory) / "config.pbtxt", std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    absl::StrAppend(&id, "config ", bytes.str().size(), "\n", bytes.str(), "\n");
  }
  for (int64_t v : m.served_versions) {
    const ModelVersion* mv = m.FindVersion(v);
    if (mv == nullptr) continue;
    std::error_code size_error, time_error;
    const auto size = fs::file_size(mv->path, size_error);
    const auto mtime = fs::last_write_time(mv->path, time_error).time_since_epoch().count();
    absl::StrAppend(&id, "version ", v, " ", mv->path, " ", size_error ? 0 : size, " ",
                    time_error ? 0 : mtime, "\n");
  }
  return id;
}

// Runs one request of zeros at the default input shapes on each session of
// `m` (recording and planning what its first requests would), so a
// replacement takes traffic warm. Best effort: a model whose inputs carry
// values (shapes, axes) may refuse zeros; that costs only the warm-up.
void WarmUp(const ServedModel& m) {
  const Model& model = m.model();
  const std::vector<std::vector<int64_t>> shapes = model.DefaultInputShapes();
  absl::StatusOr<std::shared_ptr<const WarmupRuns>> zeros =
      WarmupRuns::Zeros(model, {shapes}, {"zero warm-up"});
  if (!zeros.ok()) {
    spdlog::warn("model '{}' v{}: warm-up skipped ({}); its first requests plan and record",
                 m.name(), m.version(), std::string(zeros.status().message()));
    return;
  }
  const int sessions = std::max(1, m.settings().sessions);
  // Shared with the callbacks, which may still be unlocking it when the
  // wait below returns.
  struct Pending {
    Mutex mutex;
    int count = 0;
    absl::Status first;
  };
  auto state = std::make_shared<Pending>();
  state->count = sessions;
  for (int s = 0; s < sessions; ++s) {
    SchedulerRequest request;
    request.run = (*zeros)->Request(0);
    if (m.settings().max_batch_size > 0 && !shapes.empty() && !shapes[0].empty()) {
      request.batch_size = shapes[0][0];
    }
    // The callback keeps the zeros (the request's input bytes) alive.
    m.scheduler().Submit(std::move(request),
                         [state, runs = *zeros](absl::StatusOr<RunResult> r, const ExecutionInfo&) {
                           MutexLock lock(&state->mutex);
                           if (!r.ok() && state->first.ok()) state->first = r.status();
                           --state->count;
                         });
  }
  MutexLock lock(&state->mutex);
  state->mutex.Await(Condition(
      +[](int* n) { return *n == 0; }, &state->count));
  if (!state->first.ok()) {
    spdlog::warn("model '{}' v{}: warm-up skipped ({}); its first requests plan and record",
                 m.name(), m.version(), std::string(state->first.message()));
  }
}

}  // namespace

ModelManager::ModelManager(DeviceSet* devices, const ServerSettings& settings, Metrics* metrics)
    : devices_(devices),
      settings_(settings),
      repository_roots_(RepositoryRoots(settings.repository_path)),
      metrics_(metrics) {}

absl::Status ModelManager::ForClient(const absl::Status& status) const {
  if (status.ok()) return status;
  std::string message(status.message());
  for (const std::string& root : repository_roots_) {
    message = absl::StrReplaceAll(message, {{absl::StrCat(root, "/"), ""}, {root, "<repository>"}});
  }
  return absl::Status(status.code(), message);
}

ModelManager::~ModelManager() {
  WaitForRecovery();
  UnloadAll();
}

const char* ModelManager::StateName(State state) {
  switch (state) {
    case State::kLoading:
      return "LOADING";
    case State::kReady:
      return "READY";
    case State::kUnloading:
      return "UNLOADING";
    case State::kUnavailable:
      return "UNAVAILABLE";
  }
  return "UNKNOWN";
}

absl::StatusOr<std::map<int64_t, std::shared_ptr<ServedModel>>> ModelManager::LoadVersions(
    const RepositoryModel& repo_model) const {
  RETURN_IF_ERROR(repo_model.status);
  if (repo_model.served_versions.empty()) {
    return absl::NotFoundError(
        absl::StrCat("model '", repo_model.name, "' has no version to serve"));
  }
  std::map<int64_t, std::shared_ptr<ServedModel>> versions;
  for (int64_t v : repo_model.served_versions) {
    const ModelVersion* mv = repo_model.FindVersion(v);
    if (mv == nullptr) {
      return absl::InternalError(
          absl::StrCat("model '", repo_model.name, "': version ", v, " selected but not found"));
    }
    ModelOptions options;
    options.dim_overrides_by_name = repo_model.config.settings.dim_overrides_by_name;
    options.dim_overrides_by_denotation = repo_model.config.settings.dim_overrides_by_denotation;
    if (repo_model.config.settings.fp16) options.precision = Precision::kFp16;
    if (repo_model.config.settings.fp16_accumulation) options.accumulation = Accumulation::kFp16;
    switch (repo_model.config.settings.conv_layout) {
      case config::ModelExtension::ConvLayout::NCHW:
        options.conv_layout = ConvLayout::kNchw;
        break;
      case config::ModelExtension::ConvLayout::NHWC:
        options.conv_layout = ConvLayout::kNhwc;
        break;
      default:
        options.conv_layout = ConvLayout::kAuto;
    }
    ASSIGN_OR_RETURN(auto devices, PlacementDevices(repo_model.config.settings));
    // The model on every GPU, each with that device's cache budget.
    std::vector<ModelReplica> replicas;
    std::vector<std::shared_ptr<const Model>> models;
    for (const auto& [gpu, sessions] : devices) {
      options.cache_budget = devices_->BudgetFor(gpu);
      auto model = Model::Load(mv->path, gpu, options);
      if (!model.ok()) {
        std::string where =
            devices.size() > 1 ? absl::StrCat(" on GPU ", gpu.device->info().uuid()) : "";
        return absl::Status(model.status().code(),
                            absl::StrCat("version ", v, where, ": ", model.status().message()));
      }
      replicas.push_back({*model, sessions});
      models.push_back(*model);
    }
    const std::vector<std::string> gpus = ServedModel::GpuLabels(models);
    auto settings = ValidateModelConfig(repo_model.config, ToModelTensors(models[0]->inputs()),
                                        ToModelTensors(models[0]->outputs()));
    if (!settings.ok()) return settings.status();
    std::shared_ptr<const WarmupRuns> warmup;
    if (!settings->warmup.empty()) {
      ASSIGN_OR_RETURN(warmup, WarmupRuns::Build(*settings, *models[0], repo_model.directory));
    }
    auto scheduler = MakeScheduler(std::move(replicas), *settings, std::move(warmup));
    if (!scheduler.ok()) {
      return absl::Status(scheduler.status().code(),
                          absl::StrCat("version ", v, ": ", scheduler.status().message()));
    }
    std::shared_ptr<ModelMetrics> metrics;
    if (metrics_ != nullptr) metrics = metrics_->ForModel(repo_model.name, v, gpus);
    versions[v] =
        std::make_shared<ServedModel>(repo_model.name, v, *std::move(settings), std::move(models),
                                      *std::move(scheduler), std::move(metrics));
  }
  return versions;
}

absl::StatusOr<std::vector<std::pair<GpuContext, int>>> ModelManager::PlacementDevices(
    const ModelSettings& settings) const {
  std::vector<std::pair<GpuContext, int>> out;
  for (const ModelSettings::DeviceSessions& p : settings.placements) {
    auto gpu = devices_->For(p.device);
    if (!gpu.ok()) {
      return absl::Status(gpu.status().code(), absl::StrCat("device selector '", p.device,
                                                            "': ", gpu.status().message()));
    }
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const auto& d) { return d.first.device == gpu->device; });
    if (same != out.end()) {
      same->second += p.sessions;
    } else {
      out.emplace_back(*std::move(gpu), p.sessions);
    }
  }
  return out;
}

absl::Status ModelManager::LoadModel(const RepositoryModel& repo_model) {
  {
    MutexLock lock(&mutex_);
    Entry& entry = models_[repo_model.name];
    entry.state = State::kLoading;
    entry.reason.clear();
  }
  spdlog::info("loading model '{}'", repo_model.name);
  auto versions = LoadVersions(repo_model);
  MutexLock lock(&mutex_);
  Entry& entry = models_[repo_model.name];
  if (!versions.ok()) {
    entry.state = State::kUnavailable;
    entry.reason = std::string(ForClient(versions.status()).message());
    spdlog::error("model '{}' failed to load: {}", repo_model.name,
                  std::string(versions.status().message()));
    return absl::Status(versions.status().code(), absl::StrCat("model '", repo_model.name,
                                                               "': ", versions.status().message()));
  }
  entry.state = State::kReady;
  entry.versions = *std::move(versions);
  entry.identity = Identity(repo_model);
  std::string list;
  for (const auto& [v, m] : entry.versions) absl::StrAppend(&list, list.empty() ? "" : ",", v);
  spdlog::info("model '{}' ready (versions {})", repo_model.name, list);
  return absl::OkStatus();
}

absl::Status ModelManager::LoadStartupModels(const LoadProgress& progress) {
  MutexLock serial(&load_mutex_);
  ASSIGN_OR_RETURN(Repository repo, ScanRepository(settings_.repository_path));
  absl::Status first;
  std::vector<const RepositoryModel*> startup;
  for (const RepositoryModel& m : repo.models) {
    if (settings_.model_control == ModelControlMode::kExplicit &&
        !settings_.startup_models.empty() &&
        std::find(settings_.startup_models.begin(), settings_.startup_models.end(), m.name) ==
            settings_.startup_models.end()) {
      continue;
    }
    startup.push_back(&m);
  }
  for (size_t i = 0; i < startup.size(); ++i) {
    const RepositoryModel& m = *startup[i];
    if (progress) progress(static_cast<int>(i + 1), static_cast<int>(startup.size()), m.name);
    absl::Status s = LoadModel(m);
    if (!s.ok() && first.ok()) first = s;
  }
  if (settings_.model_control == ModelControlMode::kExplicit) {
    for (const std::string& name : settings_.startup_models) {
      if (std::none_of(repo.models.begin(), repo.models.end(),
                       [&](const RepositoryModel& m) { return m.name == name; }) &&
          first.ok()) {
        first = absl::NotFoundError(
            absl::StrCat("startup model '", name, "' is not in the repository"));
      }
    }
  }
  return first;
}

void ModelManager::DrainAll() {
  for (const std::shared_ptr<ServedModel>& m : List()) m->scheduler().Drain();
}

absl::Status ModelManager::Load(const std::string& name) {
  // config/ quotes the name in full; a client's may be a megabyte long.
  RETURN_IF_ERROR(WithBoundedClientString(CheckModelName(name), name));
  MutexLock serial(&load_mutex_);
  absl::StatusOr<RepositoryModel> scanned = ScanModel(settings_.repository_path, name);
  if (!scanned.ok()) {
    spdlog::debug("load of model '{}' refused: {}", name, std::string(scanned.status().message()));
    return ForClient(scanned.status());
  }
  RepositoryModel repo_model = *std::move(scanned);
  std::map<int64_t, std::shared_ptr<ServedModel>> old;
  {
    MutexLock lock(&mutex_);
    auto it = models_.find(name);
    if (it != models_.end()) {
      old = std::move(it->second.versions);
      it->second.versions.clear();
      it->second.state = State::kUnloading;
    }
  }
  for (auto& [v, m] : old) m->scheduler().Drain();
  old.clear();
  return ForClient(LoadModel(repo_model));
}

absl::Status ModelManager::Unload(const std::string& name) {
  MutexLock serial(&load_mutex_);
  return UnloadLocked(name);
}

absl::Status ModelManager::UnloadLocked(const std::string& name) {
  std::map<int64_t, std::shared_ptr<ServedModel>> old;
  {
    MutexLock lock(&mutex_);
    auto it = models_.find(name);
    if (it == models_.end() || it->second.state != State::kReady) {
      return absl::NotFoundError(absl::StrCat("model ", Quoted(name), " is not loaded"));
    }
    old = std::move(it->second.versions);
    it->second.versions.clear();
    it->second.state = State::kUnloading;
  }
  spdlog::info("unloading model '{}' (draining in-flight requests)", name);
  for (auto& [v, m] : old) m->scheduler().Drain();
  old.clear();
  MutexLock lock(&mutex_);
  models_.erase(name);
  spdlog::info("model '{}' unloaded", name);
  return absl::OkStatus();
}

absl::StatusOr<ReconcileReport> ModelManager::Reconcile() {
  MutexLock serial(&load_mutex_);
  ASSIGN_OR_RETURN(Repository repo, ScanRepository(settings_.repository_path));
  std::map<std::string, std::string> loaded;  // ready name -> identity
  {
    MutexLock lock(&mutex_);
    for (const auto& [name, entry] : models_) {
      if (entry.state == State::kReady) loaded[name] = entry.identity;
    }
  }
  ReconcileReport report;
  auto fail = [&](const std::string& name, const absl::Status& s) {
    report.failed.push_back(absl::StrCat(name, ": ", ForClient(s).message()));
  };
  for (const RepositoryModel& m : repo.models) {
    auto it = loaded.find(m.name);
    if (it == loaded.end()) {
      if (settings_.model_control != ModelControlMode::kNone) continue;
      absl::Status s = LoadModel(m);
      s.ok() ? report.added.push_back(m.name) : fail(m.name, s);
      continue;
    }
    const bool same = it->second == Identity(m);
    loaded.erase(it);
    if (same) {
      report.unchanged.push_back(m.name);
      continue;
    }
    absl::Status s = ReplaceModel(m);
    s.ok() ? report.replaced.push_back(m.name) : fail(m.name, s);
  }
  for (const auto& [name, identity] : loaded) {  // gone from the repository
    if (UnloadLocked(name).ok()) report.removed.push_back(name);
  }
  // Models that failed to load and are gone from the repository leave the
  // index too.
  MutexLock lock(&mutex_);
  std::erase_if(models_, [&](const auto& item) {
    return item.second.state == State::kUnavailable && item.second.versions.empty() &&
           std::none_of(repo.models.begin(), repo.models.end(),
                        [&](const RepositoryModel& m) { return m.name == item.first; });
  });
  return report;
}

absl::Status ModelManager::ReplaceModel(const RepositoryModel& repo_model) {
  spdlog::info("replacing model '{}': loading and warming its new version(s) while the old serve",
               repo_model.name);
  auto versions = LoadVersions(repo_model);
  if (!versions.ok()) {
    spdlog::error("model '{}' not replaced, the loaded version(s) keep serving: {}",
                  repo_model.name, std::string(versions.status().message()));
    return absl::Status(versions.status().code(), absl::StrCat("model '", repo_model.name,
                                                               "': ", versions.status().message()));
  }
  // Sessions that ran configured model_warmup samples as they were created
  // are warm already.
  for (const auto& [v, m] : *versions) {
    if (m->settings().warmup.empty()) WarmUp(*m);
  }
  std::map<int64_t, std::shared_ptr<ServedModel>> old;
  std::string list;
  {
    MutexLock lock(&mutex_);
    Entry& entry = models_[repo_model.name];
    old = std::move(entry.versions);
    entry.versions = *std::move(versions);
    entry.state = State::kReady;
    entry.reason.clear();
    entry.identity = Identity(repo_model);
    for (const auto& [v, m] : entry.versions) absl::StrAppend(&list, list.empty() ? "" : ",", v);
  }
  spdlog::info("model '{}' replaced (versions {} serve); draining the old", repo_model.name, list);
  Retire(std::move(old));
  return absl::OkStatus();
}

void ModelManager::Retire(std::map<int64_t, std::shared_ptr<ServedModel>> old) const {
  // A request holds its ServedModel from lookup to answer: once only `old`
  // holds a version, no request can still submit to it, so draining it
  // refuses nothing. A request stuck longer than exit_timeout is not waited
  // for (Drain still answers it).
  const absl::Time give_up = absl::Now() + settings_.exit_timeout;
  for (auto& [v, m] : old) {
    while (m.use_count() > 1 && absl::Now() < give_up) absl::SleepFor(absl::Milliseconds(5));
    m->scheduler().Drain();
  }
}

void ModelManager::UnloadAll() {
  std::vector<std::string> names;
  {
    MutexLock lock(&mutex_);
    for (const auto& [name, entry] : models_) {
      if (entry.state == State::kReady) names.push_back(name);
    }
  }
  for (const std::string& name : names) (void)Unload(name);
}

absl::StatusOr<std::shared_ptr<ServedModel>> ModelManager::Get(const std::string& name,
                                                               const std::string& version) const {
  int64_t v = 0;
  if (!version.empty()) {
    auto [ptr, ec] = std::from_chars(version.data(), version.data() + version.size(), v);
    if (ec != std::errc() || ptr != version.data() + version.size() || v <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("model version ", Quoted(version), " is not a positive number"));
    }
  }
  MutexLock lock(&mutex_);
  auto it = models_.find(name);
  if (it == models_.end()) return absl::NotFoundError(absl::StrCat("unknown model ", Quoted(name)));
  const Entry& entry = it->second;
  if (entry.state != State::kReady) {
    return absl::UnavailableError(
        absl::StrCat("model '", name, "' is not ready (", StateName(entry.state),
                     entry.reason.empty() ? "" : ": ", entry.reason, ")"));
  }
  if (entry.versions.empty())
    return absl::NotFoundError(absl::StrCat("model '", name, "' has no versions"));
  if (version.empty()) return entry.versions.rbegin()->second;
  auto vit = entry.versions.find(v);
  if (vit == entry.versions.end()) {
    return absl::NotFoundError(absl::StrCat("model '", name, "' has no served version ", v));
  }
  return vit->second;
}

std::vector<std::shared_ptr<ServedModel>> ModelManager::List(const std::string& name) const {
  std::vector<std::shared_ptr<ServedModel>> out;
  MutexLock lock(&mutex_);
  for (const auto& [n, entry] : models_) {
    if (!name.empty() && n != name) continue;
    if (entry.state != State::kReady) continue;
    for (const auto& [v, m] : entry.versions) out.push_back(m);
  }
  return out;
}

std::vector<int64_t> ModelManager::Versions(const std::string& name) const {
  std::vector<int64_t> out;
  MutexLock lock(&mutex_);
  auto it = models_.find(name);
  if (it == models_.end()) return out;
  for (const auto& [v, m] : it->second.versions) out.push_back(v);
  return out;
}

std::vector<ModelIndexEntry> ModelManager::Index(bool ready_only) const {
  std::map<std::string, ModelIndexEntry> rows;
  auto repo = ScanRepository(settings_.repository_path);
  if (repo.ok()) {
    for (const RepositoryModel& m : repo->models) {
      ModelIndexEntry& row = rows[m.name];
      row.name = m.name;
      row.state = "UNAVAILABLE";
      row.reason = m.status.ok() ? "not loaded" : std::string(ForClient(m.status).message());
    }
  }
  std::vector<ModelIndexEntry> out;
  {
    MutexLock lock(&mutex_);
    for (const auto& [name, entry] : models_) {
      if (entry.versions.empty()) {
        ModelIndexEntry& row = rows[name];
        row.name = name;
        row.state = std::string(StateName(entry.state));
        row.reason = entry.reason;
        continue;
      }
      rows.erase(name);
      for (const auto& [v, m] : entry.versions) {
        out.push_back({name, absl::StrCat(v), std::string(StateName(entry.state)), entry.reason});
      }
    }
  }
  for (auto& [name, row] : rows) out.push_back(std::move(row));
  std::sort(out.begin(), out.end(), [](const ModelIndexEntry& a, const ModelIndexEntry& b) {
    return std::tie(a.name, a.version) < std::tie(b.name, b.version);
  });
  if (ready_only) {
    std::erase_if(out, [](const ModelIndexEntry& e) { return e.state != "READY"; });
  }
  return out;
}

void ModelManager::OnDeviceLost(const ServedModel& model, int gpu) {
  const gpu::Device* device = model.device(gpu);
  MutexLock lock(&mutex_);
  if (std::find(recovering_.begin(), recovering_.end(), device) != recovering_.end()) return;
  recovering_.push_back(device);
  const std::string reason = absl::StrCat("GPU device '", device->info().name,
                                          "' was lost (VK_ERROR_DEVICE_LOST); reopening it and "
                                          "reloading the model");
  std::vector<std::string> names;
  std::vector<std::shared_ptr<ServedModel>> drain;
  TakeOffDevice(device, reason, &names, &drain);
  spdlog::error("{}: {} model(s) out of service until it is back", reason, names.size());
  // Recoveries that finished are joined here, so handles do not pile up.
  std::erase_if(recovery_threads_, [](Recovery& r) {
    if (!r.done->load()) return false;
    r.thread.join();
    return true;
  });
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::thread thread([this, device, names = std::move(names), drain = std::move(drain), done] {
    Recover(device, names, drain);
    done->store(true);
  });
  recovery_threads_.push_back({std::move(thread), std::move(done)});
}

void ModelManager::TakeOffDevice(const gpu::Device* device, const std::string& reason,
                                 std::vector<std::string>* names,
                                 std::vector<std::shared_ptr<ServedModel>>* drain) {
  for (auto& [name, entry] : models_) {
    const bool on_device =
        std::any_of(entry.versions.begin(), entry.versions.end(), [&](const auto& v) {
          const auto& replicas = v.second->replicas();
          return std::any_of(replicas.begin(), replicas.end(),
                             [&](const auto& r) { return r->gpu().device == device; });
        });
    if (!on_device) continue;
    for (auto& [v, m] : entry.versions) drain->push_back(std::move(m));
    entry.versions.clear();
    entry.state = State::kUnavailable;
    entry.reason = reason;
    names->push_back(name);
  }
}

void ModelManager::Recover(const gpu::Device* device, std::vector<std::string> names,
                           std::vector<std::shared_ptr<ServedModel>> drain) {
  MutexLock serial(&load_mutex_);
  // Every accepted request is answered (a lost device fails them at once);
  // the models' GPU objects then go, the device itself with the last of
  // them.
  for (const auto& m : drain) m->scheduler().Drain();
  drain.clear();
  if (before_reopen_) before_reopen_();
  absl::StatusOr<GpuContext> reopened = devices_->Replace(device);
  // NOT_FOUND: a load already replaced it.
  absl::Status ready = absl::IsNotFound(reopened.status()) ? absl::OkStatus() : reopened.status();
  if (!ready.ok()) {
    ready = absl::UnavailableError(
        absl::StrCat("the GPU device was lost and could not be reopened: ", ready.message()));
  }
  for (const std::string& name : names) {
    absl::Status loaded = ready;
    if (loaded.ok()) {
      absl::StatusOr<RepositoryModel> scanned = ScanModel(settings_.repository_path, name);
      loaded = scanned.ok() ? LoadModel(*scanned) : scanned.status();
    }
    if (!loaded.ok()) {
      MutexLock lock(&mutex_);
      Entry& entry = models_[name];
      entry.state = State::kUnavailable;
      entry.reason = std::string(ForClient(loaded).message());
      spdlog::error("model '{}' not recovered after device loss: {}", name, loaded.ToString());
    }
  }
  MutexLock lock(&mutex_);
  std::erase(recovering_, device);
}

void ModelManager::WaitForRecovery() {
  std::vector<Recovery> recoveries;
  {
    MutexLock lock(&mutex_);
    recoveries.swap(recovery_threads_);
  }
  for (Recovery& r : recoveries) r.thread.join();
}

}  // namespace vkserve
