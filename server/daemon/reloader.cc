// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/daemon/reloader.h"

#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

bool SameGrants(const std::vector<AuthGrant>& a, const std::vector<AuthGrant>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tie(a[i].name, a[i].token_sha256, a[i].token_file, a[i].client_identity, a[i].roles) !=
        std::tie(b[i].name, b[i].token_sha256, b[i].token_file, b[i].client_identity, b[i].roles)) {
      return false;
    }
  }
  return true;
}

bool SameTls(const TlsFiles& a, const TlsFiles& b) {
  return std::tie(a.certificate_path, a.private_key_path, a.client_ca_path) ==
         std::tie(b.certificate_path, b.private_key_path, b.client_ca_path);
}

std::string Names(const std::vector<std::string>& names, const char* sign) {
  std::string out;
  for (const std::string& n : names) absl::StrAppend(&out, " ", sign, n);
  return out;
}

}  // namespace

Reloader::Reloader(Server* server, ServerSettings running, ReadSettings read)
    : server_(server), running_(std::move(running)), read_(std::move(read)) {}

std::vector<std::string> Reloader::RestartOnlyChanges(const ServerSettings& a,
                                                      const ServerSettings& b) {
  std::vector<std::string> out;
  auto check = [&](bool same, const char* name) {
    if (!same) out.push_back(name);
  };
  check(a.grpc_address == b.grpc_address && a.grpc_port == b.grpc_port &&
            a.grpc_infer_threads == b.grpc_infer_threads,
        "grpc address/port/infer_threads");
  check(SameTls(a.GrpcTls(), b.GrpcTls()), "grpc.tls files");
  check(a.metrics_enabled == b.metrics_enabled && a.metrics_address == b.metrics_address &&
            a.metrics_port == b.metrics_port &&
            a.metrics_max_connections == b.metrics_max_connections &&
            a.metrics_request_timeout_ms == b.metrics_request_timeout_ms &&
            a.metrics_allowed_networks == b.metrics_allowed_networks,
        "metrics endpoint");
  check(SameTls(a.metrics_tls, b.metrics_tls), "metrics.tls files");
  check(a.http_address == b.http_address && a.http_port == b.http_port &&
            a.http_max_connections == b.http_max_connections &&
            a.http_request_timeout_ms == b.http_request_timeout_ms,
        "http address/port/limits");
  check(SameTls(a.http_tls, b.http_tls), "http.tls files");
  check(a.repository_path == b.repository_path, "repository.path");
  check(a.model_control == b.model_control && a.startup_models == b.startup_models,
        "repository.model_control/startup_models");
  check(a.device == b.device && a.pipeline_cache_path == b.pipeline_cache_path &&
            a.matrix_extension == b.matrix_extension,
        "gpu");
  check(a.max_message_bytes == b.max_message_bytes &&
            a.resident_output_max_count == b.resident_output_max_count &&
            a.resident_output_max_bytes == b.resident_output_max_bytes &&
            a.resident_output_idle_expiry == b.resident_output_idle_expiry &&
            a.allow_shared_memory == b.allow_shared_memory &&
            a.shared_memory_key_prefix == b.shared_memory_key_prefix &&
            a.cache_device_bytes == b.cache_device_bytes &&
            a.cache_host_bytes == b.cache_host_bytes &&
            a.output_buffer_pool_bytes == b.output_buffer_pool_bytes,
        "limits");
  check(SameGrants(a.auth_grants, b.auth_grants), "auth");
  check(a.trace_directory == b.trace_directory && a.trace_every_n == b.trace_every_n &&
            a.trace_max_files == b.trace_max_files &&
            a.trace_allow_request == b.trace_allow_request,
        "trace");
  check(a.exit_timeout == b.exit_timeout, "exit_timeout_seconds");
  return out;
}

void Reloader::ReloadTls() {
  if (running_.tls_enabled()) {
    if (absl::Status s = server_->ReloadTls(); !s.ok()) {
      spdlog::error("TLS reload failed, the previous certificate stays in use: {}",
                    std::string(s.message()));
    }
  }
  if (running_.http_enabled() && running_.http_tls.enabled()) {
    if (absl::Status s = server_->ReloadHttpTls(); !s.ok()) {
      spdlog::error("HTTP TLS reload failed, the previous certificate stays in use: {}",
                    std::string(s.message()));
    }
  }
  if (running_.metrics_enabled && running_.metrics_tls.enabled()) {
    if (absl::Status s = server_->ReloadMetricsTls(); !s.ok()) {
      spdlog::error("metrics TLS reload failed, the previous certificate stays in use: {}",
                    std::string(s.message()));
    }
  }
}

absl::StatusOr<std::string> Reloader::Reload() {
  absl::StatusOr<ServerSettings> next = read_();
  if (!next.ok()) {
    spdlog::error("reload: the config is rejected, the running one stays: {}",
                  std::string(next.status().message()));
    return next.status();
  }
  spdlog::info("reload: config {} is valid; applying it", next->source);
  const std::vector<std::string> restart = RestartOnlyChanges(running_, *next);
  if (!restart.empty()) {
    spdlog::warn("reload: these settings changed but only take effect on a restart: {}",
                 absl::StrJoin(restart, ", "));
  }
  if (next->log_level != running_.log_level || next->log_format != running_.log_format) {
    server_->log().Set(next->log_level, next->log_format);
    running_.log_level = next->log_level;
    running_.log_format = next->log_format;
  }
  ReloadTls();
  absl::StatusOr<ReconcileReport> models = server_->models().Reconcile();
  if (!models.ok()) {
    // The config was applied; the repository could not be read (nothing
    // about the models changed).
    spdlog::error("reload: the repository was not rescanned: {}",
                  std::string(models.status().message()));
    return absl::StrCat("models unchanged (repository unreadable: ", models.status().message(),
                        ")");
  }
  for (const std::string& f : models->failed) spdlog::error("reload: {}", f);
  std::string summary = absl::StrCat("models:", Names(models->added, "+"),
                                     Names(models->replaced, "~"), Names(models->removed, "-"));
  if (models->added.empty() && models->replaced.empty() && models->removed.empty()) {
    absl::StrAppend(&summary, " unchanged");
  }
  if (!models->failed.empty())
    absl::StrAppend(&summary, "; ", models->failed.size(), " failed to load");
  if (!restart.empty())
    absl::StrAppend(&summary, "; restart needed for: ", absl::StrJoin(restart, ", "));
  spdlog::info("reload done: {}", summary);
  return summary;
}

}  // namespace vkserve
