// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/daemon/server.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/host_heap.h"
#include "base/status_macros.h"
#include "gpu/cache_budget.h"
#include "server/http/http_front_end.h"
#include "server/http/metrics_endpoint.h"
#include "spdlog/spdlog.h"

namespace vkserve {

Server::Server(const ServerSettings& settings) { context_.settings = settings; }

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServerSettings& settings,
                                                      const ServerHooks& hooks) {
  auto server = std::unique_ptr<Server>(new Server(settings));
  // Certificates and token files first: a bad one fails start-up before any
  // GPU work or model load.
  ASSIGN_OR_RETURN(server->authorizer_, Authorizer::Create(settings));
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> credentials,
                   server->Credentials(settings));
  if (settings.metrics_enabled && settings.metrics_tls.enabled()) {
    RETURN_IF_ERROR(LoadTlsMaterial(settings.metrics_tls, "metrics").status());
  }
  DeviceSetOptions device_options;
  device_options.runtime.device = settings.device;
  device_options.runtime.pipeline_cache_path =
      settings.pipeline_cache_path.value_or(DefaultPipelineCachePath());
  // Every device the server opens (DeviceSet copies these options); NV or
  // KHR on a device without it fails there, as `vkserve infer` does.
  device_options.runtime.matrix_extension = settings.matrix_extension;
  device_options.runtime.faults = hooks.faults;
  device_options.device_per_selector = hooks.device_per_selector;
  if (settings.cache_device_bytes)
    device_options.cache_device_bytes = static_cast<uint64_t>(*settings.cache_device_bytes);
  if (settings.cache_host_bytes)
    device_options.cache_host_bytes = static_cast<uint64_t>(*settings.cache_host_bytes);
  ASSIGN_OR_RETURN(server->devices_, DeviceSet::Create(device_options));

  ResidentLimits limits;
  limits.max_count =
      static_cast<uint64_t>(std::max<int64_t>(settings.resident_output_max_count, 0));
  limits.max_bytes =
      static_cast<uint64_t>(std::max<int64_t>(settings.resident_output_max_bytes, 0));
  limits.idle_expiry = settings.resident_output_idle_expiry;
  server->resident_ = std::make_unique<ResidentRegistry>(limits);
  server->shared_memory_ = std::make_unique<SharedMemoryManager>(settings.allow_shared_memory);
  server->metrics_ =
      std::make_unique<Metrics>(kServerVersion, server->devices_->Default().device->info().name,
                                [s = server.get()] { return s->SampleGauges(); });
  RequestTracerOptions trace_options;
  trace_options.directory = settings.trace_directory;
  trace_options.every_n = settings.trace_every_n;
  trace_options.max_files = settings.trace_max_files;
  server->tracer_ = std::make_unique<RequestTracer>(trace_options);
  server->log_ = std::make_unique<LogControl>(settings.log_level, settings.log_format);
  server->models_ =
      std::make_unique<ModelManager>(server->devices_.get(), settings, server->metrics_.get());
  server->models_->set_before_reopen(hooks.before_device_reopen);
  RETURN_IF_ERROR(server->models_->LoadStartupModels(hooks.on_model_loading));

  server->context_.models = server->models_.get();
  server->context_.resident = server->resident_.get();
  server->context_.shared_memory = server->shared_memory_.get();
  server->context_.tracer = server->tracer_.get();
  server->context_.log = server->log_.get();
  server->output_buffers_ = std::make_shared<OutputBufferPool>(
      static_cast<uint64_t>(std::max<int64_t>(settings.output_buffer_pool_bytes, 0)));
  server->context_.output_buffers = server->output_buffers_;
  server->context_.infer_threads =
      settings.grpc_infer_threads > 0 ? settings.grpc_infer_threads : InferQueues::DefaultCount();
  server->inference_ = std::make_unique<InferenceService>(&server->context_);
  server->health_ = std::make_unique<HealthService>(&server->context_);
  server->authorizing_ =
      MakeAuthorizingService(server->inference_.get(), server->authorizer_.get());

  const int max_message = static_cast<int>(
      std::clamp<int64_t>(settings.max_message_bytes, 1024, std::numeric_limits<int>::max()));
  // Requests up to twice the limit reach the service, which refuses those over
  // it with INVALID_ARGUMENT and a message (grpc_infer.cc).
  const int max_receive = static_cast<int>(
      std::clamp<int64_t>(2 * int64_t{max_message}, 1024, std::numeric_limits<int>::max()));
  grpc::ServerBuilder builder;
  builder.AddListeningPort(settings.GrpcListenAddress(), credentials, &server->port_);
  builder.SetMaxReceiveMessageSize(max_receive);
  builder.SetMaxSendMessageSize(max_message);
  builder.RegisterService(server->authorizing_.get());
  builder.RegisterService(server->health_.get());
  server->infer_queues_ = std::make_unique<InferQueues>(
      builder, server->authorizing_.get(), server->inference_.get(), server->authorizer_.get(),
      server->output_buffers_, server->context_.infer_threads);
  server->grpc_ = builder.BuildAndStart();
  if (server->grpc_ == nullptr || server->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", settings.GrpcListenAddress()));
  }
  server->infer_queues_->Start();
  if (settings.http_enabled()) {
    ASSIGN_OR_RETURN(server->http_, HttpFrontEnd::Start(settings, server->inference_.get(),
                                                        server->authorizer_.get()));
    spdlog::info("KServe v2 HTTP{} at {}", settings.http_tls.enabled() ? "S" : "",
                 server->http_->address());
  }
  if (settings.metrics_enabled) {
    ASSIGN_OR_RETURN(server->metrics_endpoint_,
                     MetricsEndpoint::Start(settings, server->metrics_.get()));
    if (server->metrics_endpoint_->tls()) {
      spdlog::info(
          "metrics at https://{}/metrics{}: {}", server->metrics_address(),
          settings.metrics_tls.client_ca_path.empty() ? "" : " (client certificates required)",
          server->metrics_endpoint_->summary());
    } else {
      spdlog::info("metrics at http://{}/metrics", server->metrics_address());
    }
  }
  WarnIfExposed(settings);
  server->context_.accepting.store(true);
  server->ArmExpiry();
  server->housekeeping_thread_ = std::thread([s = server.get()] { s->housekeeping_.run(); });
  spdlog::info("vkserve {} listening on {} (gRPC), repository {}", kServerVersion,
               server->address(), settings.repository_path);
  return server;
}

Server::~Server() { Shutdown(); }

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Server::Credentials(
    const ServerSettings& settings) {
  if (!settings.tls_enabled()) return grpc::InsecureServerCredentials();
  ASSIGN_OR_RETURN(tls_, TlsCredentials::Create(settings));
  spdlog::info("gRPC TLS{}: {}",
               settings.tls_client_ca_path.empty() ? "" : " (client certificates required)",
               tls_->summary());
  return tls_->server_credentials();
}

void Server::WarnIfExposed(const ServerSettings& settings) {
  if (settings.GrpcIsLoopback()) return;
  if (!settings.tls_enabled()) {
    spdlog::warn("gRPC listens on {} without TLS: requests{} travel in plaintext",
                 settings.grpc_address, settings.auth_grants.empty() ? "" : " and bearer tokens");
  }
  if (settings.auth_grants.empty()) {
    spdlog::warn("gRPC listens on {} with no auth grants: every caller may call every RPC{}",
                 settings.grpc_address,
                 settings.model_control == ModelControlMode::kExplicit
                     ? ", model load/unload included"
                     : "");
  }
}

absl::Status Server::ReloadMetricsTls() {
  if (metrics_endpoint_ == nullptr)
    return absl::FailedPreconditionError("metrics TLS is not configured");
  RETURN_IF_ERROR(metrics_endpoint_->ReloadTls());
  spdlog::info("metrics TLS reloaded: {}", metrics_endpoint_->summary());
  return absl::OkStatus();
}

int Server::metrics_port() const {
  return metrics_endpoint_ != nullptr ? metrics_endpoint_->port() : 0;
}

int Server::http_port() const { return http_ != nullptr ? http_->port() : 0; }

std::string Server::http_address() const { return http_ != nullptr ? http_->address() : ""; }

absl::Status Server::ReloadHttpTls() {
  if (http_ == nullptr) return absl::FailedPreconditionError("HTTP is not configured");
  RETURN_IF_ERROR(http_->ReloadTls());
  spdlog::info("HTTP TLS reloaded");
  return absl::OkStatus();
}

absl::Status Server::ReloadTls() {
  if (tls_ == nullptr) return absl::FailedPreconditionError("gRPC TLS is not configured");
  RETURN_IF_ERROR(tls_->Reload());
  spdlog::info("gRPC TLS reloaded: {}", tls_->summary());
  return absl::OkStatus();
}

std::string Server::address() const {
  const std::string& host = context_.settings.grpc_address;
  if (host.find(':') != std::string::npos) return absl::StrCat("[", host, "]:", port_);
  return absl::StrCat(host, ":", port_);
}

std::string Server::metrics_address() const {
  const std::string& host = context_.settings.metrics_address;
  const int port = metrics_port();
  if (host.find(':') != std::string::npos) return absl::StrCat("[", host, "]:", port);
  return absl::StrCat(host, ":", port);
}

GaugeSample Server::SampleGauges() const {
  GaugeSample sample;
  // Start-up and shutdown: the endpoint serves only between the two, but a
  // scrape racing them must not touch what is not there.
  if (models_ == nullptr || resident_ == nullptr) return sample;
  const auto resident = resident_->StatsByModel();
  for (const std::shared_ptr<ServedModel>& m : models_->List()) {
    ModelGaugeSample g;
    g.model = m->name();
    g.version = absl::StrCat(m->version());
    const SchedulerStats pool = m->scheduler().stats();
    g.sessions = pool.sessions;
    g.sessions_busy = pool.busy_sessions;
    g.queue_depth = pool.queued_now;
    const std::vector<std::string> gpus = m->gpus();
    for (size_t i = 0; i < gpus.size() && i < pool.sessions_by_gpu.size(); ++i) {
      g.gpus.push_back({gpus[i], pool.sessions_by_gpu[i],
                        i < pool.busy_by_gpu.size() ? pool.busy_by_gpu[i] : 0});
    }
    if (auto it = resident.find({m->name(), m->version()}); it != resident.end()) {
      g.resident_outputs = it->second.count;
      g.resident_output_bytes = it->second.bytes;
    }
    g.gpu_nodes = static_cast<uint64_t>(m->gpu_nodes());
    g.cpu_nodes = static_cast<uint64_t>(m->cpu_nodes());
    sample.models.push_back(std::move(g));
  }
  sample.devices = models_->DeviceMemory();
  if (output_buffers_ != nullptr) sample.output_buffers = output_buffers_->stats();
  return sample;
}

void Server::ArmExpiry() {
  expiry_timer_.expires_after(std::chrono::seconds(1));
  expiry_timer_.async_wait([this](const boost::system::error_code& error) {
    if (error) return;  // cancelled: shutting down
    const size_t n = resident_->ExpireIdle(absl::Now());
    if (n > 0) spdlog::info("released {} idle GPU-resident output(s)", n);
    // So that RSS follows the load rather than its busiest moment so far.
    heap_trimmer_.Tick();
    ArmExpiry();
  });
}

void Server::Shutdown() {
  {
    MutexLock lock(&mutex_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  context_.accepting.store(false);
  // Requests waiting for a batch to fill run now rather than after their
  // delay, and every accepted request is answered before gRPC waits on them.
  if (models_ != nullptr) models_->DrainAll();
  // HTTP requests in flight are answered (up to exit_timeout); new ones were
  // refused since `accepting` went false.
  if (http_ != nullptr) http_->Stop(context_.settings.exit_timeout);
  if (grpc_ != nullptr) {
    spdlog::info("shutting down: finishing in-flight requests (up to {})",
                 absl::FormatDuration(context_.settings.exit_timeout));
    grpc_->Shutdown(absl::ToChronoTime(absl::Now() + context_.settings.exit_timeout));
  }
  if (models_ != nullptr) models_->UnloadAll();
  if (grpc_ != nullptr) grpc_->Wait();
  // After gRPC's shutdown: every ModelInfer call requested has come back.
  if (infer_queues_ != nullptr) infer_queues_->Stop();
  housekeeping_.stop();
  if (housekeeping_thread_.joinable()) housekeeping_thread_.join();
  // Last: the figures of a draining server are still scraped.
  if (metrics_endpoint_ != nullptr) metrics_endpoint_->Stop();
  spdlog::info("shut down");
}

}  // namespace vkserve
