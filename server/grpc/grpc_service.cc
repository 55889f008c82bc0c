// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Health, metadata, configuration, statistics, repository and shared-memory
// RPCs (see grpc_service.h). Inference lives in grpc_infer.cc.
#include "server/grpc/grpc_service.h"

#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "server/grpc/runtime_settings.h"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

grpc::ServerUnaryReactor* Done(grpc::CallbackServerContext* c, const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = c->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

void SetDuration(inference::StatisticDuration* d, uint64_t count, uint64_t ns) {
  d->set_count(count);
  d->set_ns(ns);
}

}  // namespace

InferenceService::~InferenceService() { control_.Shutdown(); }

void InferenceService::RunAside(std::function<absl::Status()> work,
                                std::function<void(absl::Status)> done) {
  auto shared_done = std::make_shared<std::function<void(absl::Status)>>(std::move(done));
  absl::Status queued = control_.Post([this, shared_done, work = std::move(work)] {
    // A call queued when shutdown began must not load a model again.
    absl::Status s =
        ctx_->accepting.load() ? work() : absl::UnavailableError("the server is shutting down");
    (*shared_done)(std::move(s));
  });
  if (!queued.ok()) (*shared_done)(std::move(queued));
}

grpc::ServerUnaryReactor* InferenceService::ServerLive(grpc::CallbackServerContext* c,
                                                       const inference::ServerLiveRequest*,
                                                       inference::ServerLiveResponse* resp) {
  resp->set_live(true);
  return Done(c, absl::OkStatus());
}

grpc::ServerUnaryReactor* InferenceService::ServerReady(grpc::CallbackServerContext* c,
                                                        const inference::ServerReadyRequest*,
                                                        inference::ServerReadyResponse* resp) {
  resp->set_ready(ctx_->Ready());
  return Done(c, absl::OkStatus());
}

absl::Status InferenceService::DoModelReady(const inference::ModelReadyRequest& req,
                                            inference::ModelReadyResponse* resp) {
  auto model = ctx_->models->Get(req.name(), req.version());
  if (!model.ok() && absl::IsInvalidArgument(model.status())) return model.status();
  resp->set_ready(model.ok() && ctx_->accepting.load());
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* InferenceService::ModelReady(grpc::CallbackServerContext* c,
                                                       const inference::ModelReadyRequest* req,
                                                       inference::ModelReadyResponse* resp) {
  return Done(c, DoModelReady(*req, resp));
}

absl::Status InferenceService::DoServerMetadata(const inference::ServerMetadataRequest& req,
                                                inference::ServerMetadataResponse* resp) {
  (void)req;
  resp->set_name(kServerName);
  resp->set_version(kServerVersion);
  for (const char* e : {"model_repository", "model_configuration", "statistics", "parameters",
                        "trace", "logging"}) {
    resp->add_extensions(e);
  }
  if (ctx_->shared_memory->enabled()) resp->add_extensions("system_shared_memory");
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* InferenceService::ServerMetadata(
    grpc::CallbackServerContext* c, const inference::ServerMetadataRequest* req,
    inference::ServerMetadataResponse* resp) {
  return Done(c, DoServerMetadata(*req, resp));
}

absl::Status InferenceService::DoModelMetadata(const inference::ModelMetadataRequest& req,
                                               inference::ModelMetadataResponse* resp) {
  auto model = ctx_->models->Get(req.name(), req.version());
  if (!model.ok()) return model.status();
  const ModelSettings& settings = (*model)->settings();
  resp->set_name((*model)->name());
  for (int64_t v : ctx_->models->Versions(req.name())) resp->add_versions(absl::StrCat(v));
  // The format of the file loaded, whatever the config says: an .ort file
  // is reported as such.
  resp->set_platform(std::string((*model)->model().graph().format == "ort" ? kReportedOrtPlatform
                                                                           : kReportedPlatform));
  for (const auto& in : settings.config.input()) {
    auto* t = resp->add_inputs();
    t->set_name(in.name());
    t->set_datatype(std::string(KServeDataType(in.data_type())));
    for (int64_t d : MetadataShape(settings, in.dims())) t->add_shape(d);
  }
  for (const auto& out : settings.config.output()) {
    auto* t = resp->add_outputs();
    t->set_name(out.name());
    t->set_datatype(std::string(KServeDataType(out.data_type())));
    for (int64_t d : MetadataShape(settings, out.dims())) t->add_shape(d);
  }
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* InferenceService::ModelMetadata(
    grpc::CallbackServerContext* c, const inference::ModelMetadataRequest* req,
    inference::ModelMetadataResponse* resp) {
  return Done(c, DoModelMetadata(*req, resp));
}

absl::Status InferenceService::DoModelConfig(const inference::ModelConfigRequest& req,
                                             inference::ModelConfigResponse* resp) {
  auto model = ctx_->models->Get(req.name(), req.version());
  if (!model.ok()) return model.status();
  *resp->mutable_config() = (*model)->settings().config;
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* InferenceService::ModelConfig(grpc::CallbackServerContext* c,
                                                        const inference::ModelConfigRequest* req,
                                                        inference::ModelConfigResponse* resp) {
  return Done(c, DoModelConfig(*req, resp));
}

absl::Status InferenceService::DoModelStatistics(const inference::ModelStatisticsRequest& req,
                                                 inference::ModelStatisticsResponse* resp) {
  std::vector<std::shared_ptr<ServedModel>> models;
  if (!req.version().empty()) {
    auto model = ctx_->models->Get(req.name(), req.version());
    if (!model.ok()) return model.status();
    models.push_back(*model);
  } else {
    models = ctx_->models->List(req.name());
    if (!req.name().empty() && models.empty()) {
      return ctx_->models->Get(req.name(), "").status();
    }
  }
  for (const auto& m : models) {
    const ModelStatsSnapshot s = m->stats();
    auto* out = resp->add_model_stats();
    out->set_name(m->name());
    out->set_version(absl::StrCat(m->version()));
    out->set_last_inference(s.last_inference_ms);
    out->set_inference_count(s.inference_count);
    out->set_execution_count(s.execution_count);
    auto* st = out->mutable_inference_stats();
    SetDuration(st->mutable_success(), s.success_count, s.success_ns);
    SetDuration(st->mutable_fail(), s.fail_count, s.fail_ns);
    SetDuration(st->mutable_queue(), s.queue_count, s.queue_ns);
    SetDuration(st->mutable_compute_input(), s.compute_input_count, s.compute_input_ns);
    SetDuration(st->mutable_compute_infer(), s.compute_infer_count, s.compute_infer_ns);
    SetDuration(st->mutable_compute_output(), s.compute_output_count, s.compute_output_ns);
    st->mutable_cache_hit();
    st->mutable_cache_miss();
    for (const auto& [size, b] : s.batches) {
      auto* bs = out->add_batch_stats();
      bs->set_batch_size(static_cast<uint64_t>(size));
      SetDuration(bs->mutable_compute_input(), b.count, b.compute_input_ns);
      SetDuration(bs->mutable_compute_infer(), b.count, b.compute_infer_ns);
      SetDuration(bs->mutable_compute_output(), b.count, b.compute_output_ns);
    }
  }
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* InferenceService::ModelStatistics(
    grpc::CallbackServerContext* c, const inference::ModelStatisticsRequest* req,
    inference::ModelStatisticsResponse* resp) {
  return Done(c, DoModelStatistics(*req, resp));
}

absl::Status InferenceService::DoRepositoryIndex(const inference::RepositoryIndexRequest& req,
                                                 inference::RepositoryIndexResponse* resp) {
  if (!req.repository_name().empty()) {
    return absl::NotFoundError(absl::StrCat("unknown repository ", Quoted(req.repository_name()),
                                            " (this server has one; leave repository_name empty)"));
  }
  for (const ModelIndexEntry& e : ctx_->models->Index(req.ready())) {
    auto* m = resp->add_models();
    m->set_name(e.name);
    m->set_version(e.version);
    m->set_state(e.state);
    m->set_reason(e.reason);
  }
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* InferenceService::RepositoryIndex(
    grpc::CallbackServerContext* c, const inference::RepositoryIndexRequest* req,
    inference::RepositoryIndexResponse* resp) {
  return Done(c, DoRepositoryIndex(*req, resp));
}

void InferenceService::DoRepositoryModelLoad(const inference::RepositoryModelLoadRequest& req,
                                             std::function<void(absl::Status)> done) {
  if (ctx_->settings.model_control != ModelControlMode::kExplicit) {
    return done(absl::FailedPreconditionError(
        "model control mode is NONE; set repository { model_control: EXPLICIT } to load models"));
  }
  if (!req.repository_name().empty()) {
    return done(
        absl::NotFoundError(absl::StrCat("unknown repository ", Quoted(req.repository_name()))));
  }
  if (!req.parameters().empty()) {
    return done(absl::InvalidArgumentError("RepositoryModelLoad parameters are not supported"));
  }
  std::string name = req.model_name();
  RunAside([this, name] { return ctx_->models->Load(name); }, std::move(done));
}

void InferenceService::DoRepositoryModelUnload(const inference::RepositoryModelUnloadRequest& req,
                                               std::function<void(absl::Status)> done) {
  if (ctx_->settings.model_control != ModelControlMode::kExplicit) {
    return done(absl::FailedPreconditionError(
        "model control mode is NONE; set repository { model_control: EXPLICIT } to unload models"));
  }
  if (!req.repository_name().empty()) {
    return done(
        absl::NotFoundError(absl::StrCat("unknown repository ", Quoted(req.repository_name()))));
  }
  std::string name = req.model_name();
  RunAside([this, name] { return ctx_->models->Unload(name); }, std::move(done));
}

grpc::ServerUnaryReactor* InferenceService::RepositoryModelLoad(
    grpc::CallbackServerContext* c, const inference::RepositoryModelLoadRequest* req,
    inference::RepositoryModelLoadResponse*) {
  grpc::ServerUnaryReactor* reactor = c->DefaultReactor();
  DoRepositoryModelLoad(*req, [reactor](absl::Status s) { reactor->Finish(ToGrpcStatus(s)); });
  return reactor;
}

grpc::ServerUnaryReactor* InferenceService::RepositoryModelUnload(
    grpc::CallbackServerContext* c, const inference::RepositoryModelUnloadRequest* req,
    inference::RepositoryModelUnloadResponse*) {
  grpc::ServerUnaryReactor* reactor = c->DefaultReactor();
  DoRepositoryModelUnload(*req, [reactor](absl::Status s) { reactor->Finish(ToGrpcStatus(s)); });
  return reactor;
}

absl::Status InferenceService::DoSystemSharedMemoryStatus(
    const inference::SystemSharedMemoryStatusRequest& req,
    inference::SystemSharedMemoryStatusResponse* resp) {
  auto regions = ctx_->shared_memory->Status(req.name());
  if (!regions.ok()) return regions.status();
  for (const SharedMemoryRegionInfo& r : *regions) {
    auto& out = (*resp->mutable_regions())[r.name];
    out.set_name(r.name);
    out.set_key(r.key);
    out.set_offset(r.offset);
    out.set_byte_size(r.byte_size);
  }
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* InferenceService::SystemSharedMemoryStatus(
    grpc::CallbackServerContext* c, const inference::SystemSharedMemoryStatusRequest* req,
    inference::SystemSharedMemoryStatusResponse* resp) {
  return Done(c, DoSystemSharedMemoryStatus(*req, resp));
}

absl::Status InferenceService::DoSystemSharedMemoryRegister(
    const inference::SystemSharedMemoryRegisterRequest& req,
    inference::SystemSharedMemoryRegisterResponse* resp) {
  (void)resp;
  absl::Status s =
      ctx_->shared_memory->Register(req.name(), req.key(), req.offset(), req.byte_size());
  if (s.ok())
    spdlog::info("shared-memory region {} registered ({} bytes)", Quoted(req.name()),
                 req.byte_size());
  return s;
}

grpc::ServerUnaryReactor* InferenceService::SystemSharedMemoryRegister(
    grpc::CallbackServerContext* c, const inference::SystemSharedMemoryRegisterRequest* req,
    inference::SystemSharedMemoryRegisterResponse* resp) {
  return Done(c, DoSystemSharedMemoryRegister(*req, resp));
}

absl::Status InferenceService::DoSystemSharedMemoryUnregister(
    const inference::SystemSharedMemoryUnregisterRequest& req,
    inference::SystemSharedMemoryUnregisterResponse* resp) {
  (void)resp;
  return ctx_->shared_memory->Unregister(req.name());
}

grpc::ServerUnaryReactor* InferenceService::SystemSharedMemoryUnregister(
    grpc::CallbackServerContext* c, const inference::SystemSharedMemoryUnregisterRequest* req,
    inference::SystemSharedMemoryUnregisterResponse* resp) {
  return Done(c, DoSystemSharedMemoryUnregister(*req, resp));
}

grpc::ServerUnaryReactor* HealthService::Check(grpc::CallbackServerContext* c,
                                               const grpc::health::v1::HealthCheckRequest* req,
                                               grpc::health::v1::HealthCheckResponse* resp) {
  if (!req->service().empty() && req->service() != "inference.GRPCInferenceService") {
    return Done(c, absl::NotFoundError(absl::StrCat("unknown service ", Quoted(req->service()))));
  }
  resp->set_status(ctx_->Ready() ? grpc::health::v1::HealthCheckResponse::SERVING
                                 : grpc::health::v1::HealthCheckResponse::NOT_SERVING);
  return Done(c, absl::OkStatus());
}

grpc::ServerUnaryReactor* InferenceService::TraceSetting(grpc::CallbackServerContext* c,
                                                         const inference::TraceSettingRequest* req,
                                                         inference::TraceSettingResponse* resp) {
  absl::Status s = ApplyTraceSettings(*req, *ctx_->tracer, resp);
  if (s.ok() && !req->settings().empty()) spdlog::info("trace settings changed by a client");
  return Done(c, s);
}

grpc::ServerUnaryReactor* InferenceService::LogSettings(grpc::CallbackServerContext* c,
                                                        const inference::LogSettingsRequest* req,
                                                        inference::LogSettingsResponse* resp) {
  absl::Status s = ApplyLogSettings(*req, *ctx_->log, resp);
  if (s.ok() && !req->settings().empty()) {
    spdlog::info("log settings changed by a client: level {}, format {}",
                 LogLevelName(ctx_->log->level()), LogFormatName(ctx_->log->format()));
  }
  return Done(c, s);
}

}  // namespace vkserve
