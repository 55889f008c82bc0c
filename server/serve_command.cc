// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// `vkserve serve [--config FILE] [--model-repository DIR] [--grpc-port N]
//   [--metrics-port N] [--check-config]`, and plain `vkserve`: serve on the built-in default
// config. SIGTERM, SIGINT and SIGHUP are taken by a Boost.Asio signal_set,
// installed before any thread starts; its handlers run on the main thread
// (Asio's signal handler only wakes it, so no async-signal-safety concerns).
// SIGTERM and SIGINT: the server stops accepting, runs the batches still
// forming, answers every accepted request and the process exits 0. SIGHUP:
// the TLS certificates, keys and client CAs of gRPC (grpc.tls) and of the
// metrics endpoint (metrics.tls) are re-read (a bad set is logged and the
// old one kept).
#include <signal.h>

#include <functional>

#include <cstdio>
#include <filesystem>

#include "absl/strings/numbers.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/signal_set.hpp"
#include "server/command.h"
#include "server/logging.h"
#include "server/server.h"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

int ServeUsage() {
  std::fprintf(stderr,
               "usage: vkserve serve [--config FILE] [--model-repository DIR] [--grpc-port N] "
               "[--metrics-port N] [--check-config]\n"
               "  --check-config  validate the config file and exit (0 when valid)\n");
  return 2;
}

bool ParsePort(const std::string& text, int* port) {
  return absl::SimpleAtoi(text, port) && *port >= 0 && *port <= 65535;
}

// SIGHUP: re-reads the TLS files of every endpoint that has them.
void ReloadTlsFiles(const ServerSettings& settings, Server& server) {
  const bool grpc = settings.tls_enabled();
  const bool metrics = settings.metrics_enabled && settings.metrics_tls.enabled();
  if (!grpc && !metrics) {
    spdlog::info("received SIGHUP: nothing to reload (no grpc.tls or metrics.tls)");
    return;
  }
  spdlog::info("received SIGHUP: re-reading the TLS files");
  if (grpc) {
    if (absl::Status s = server.ReloadTls(); !s.ok()) {
      spdlog::error("TLS reload failed, the previous certificate stays in use: {}", std::string(s.message()));
    }
  }
  if (metrics) {
    if (absl::Status s = server.ReloadMetricsTls(); !s.ok()) {
      spdlog::error("metrics TLS reload failed, the previous certificate stays in use: {}",
                    std::string(s.message()));
    }
  }
}

}  // namespace

int RunServeCommand(const std::vector<std::string>& args) {
  std::string config_path, repository;
  int grpc_port = -1, metrics_port = -1;
  bool check_only = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= args.size()) return false;
      *out = args[++i];
      return true;
    };
    std::string v;
    if (a == "-h" || a == "--help") {
      ServeUsage();
      return 0;
    } else if (a == "--check-config") {
      check_only = true;
    } else if (a == "--config") {
      if (!value(&config_path)) return ServeUsage();
    } else if (a == "--model-repository") {
      if (!value(&repository)) return ServeUsage();
    } else if (a == "--grpc-port") {
      if (!value(&v) || !ParsePort(v, &grpc_port)) return ServeUsage();
    } else if (a == "--metrics-port") {
      if (!value(&v) || !ParsePort(v, &metrics_port)) return ServeUsage();
    } else {
      std::fprintf(stderr, "vkserve serve: unknown argument '%s'\n", a.c_str());
      return ServeUsage();
    }
  }
  auto settings = config_path.empty() ? DefaultServerConfig() : LoadServerConfig(config_path);
  if (!settings.ok()) {
    std::fprintf(stderr, "vkserve serve: %s\n", std::string(settings.status().message()).c_str());
    return 1;
  }
  if (!repository.empty()) settings->repository_path = std::filesystem::absolute(repository).string();
  if (grpc_port >= 0) settings->grpc_port = grpc_port;
  if (metrics_port >= 0) settings->metrics_port = metrics_port;
  if (check_only) {
    std::printf("config OK: %s (repository %s)\n", settings->source.c_str(),
                settings->repository_path.c_str());
    return 0;
  }
  ConfigureLogging(settings->log_level, settings->log_format);
  spdlog::info("config: {}", settings->source);

  // Installed before any thread starts: from here on these signals only
  // wake the main thread's io_context.
  boost::asio::io_context io;
  boost::asio::signal_set signals(io, SIGTERM, SIGINT, SIGHUP);

  auto server = Server::Start(*settings);
  if (!server.ok()) {
    spdlog::error("start-up failed: {}", server.status().ToString());
    return 1;
  }
  std::printf("vkserve listening on %s\n", (*server)->address().c_str());
  if ((*server)->metrics_port() != 0) {
    std::printf("metrics at %s://%s/metrics\n", settings->metrics_tls.enabled() ? "https" : "http",
                (*server)->metrics_address().c_str());
  }
  std::fflush(stdout);
  int sig = 0;
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& error, int received) {
        if (error) return;
        if (received != SIGHUP) {
          sig = received;  // nothing re-armed: io.run() returns
          return;
        }
        ReloadTlsFiles(*settings, **server);
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);
  io.run();
  spdlog::info("received {}", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  (*server)->Shutdown();
  server->reset();
  return 0;
}

}  // namespace vkserve
