// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// `vkserve serve [--config FILE] [--model-repository DIR] [--grpc-port N]
//   [--metrics-port N] [--http-port N] [--device SEL] [--matrix-extension auto|nv|khr]
//   [--instance N] [--check-config]`, and plain
//   `vkserve`:
// serve on the built-in default config. `--instance N` is for one process per
// GPU (the vkserve@.service template): device selector N, both ports
// shifted by 10·N and the pipeline cache file in a subdirectory N. SIGTERM, SIGINT and SIGHUP are
// blocked before any thread starts, so every thread inherits the block, and the main thread takes
// them with sigwait: no handler runs inside another thread (which a sanitizer's runtime may hold
// back until that thread next calls into it), and nothing need be async-signal-safe. SIGTERM
// and SIGINT: the server stops accepting, runs the batches still forming, answers every accepted
// request and the process exits 0. SIGHUP
// (`systemctl reload`): the config and repository are re-read and applied
// (server/daemon/reloader.h). Under systemd (NOTIFY_SOCKET) the service manager
// hears READY=1, STATUS=, RELOADING=1 and STOPPING=1 (systemd_notifier.h)
// and, with WatchdogSec=, WATCHDOG=1 while the GPU makes progress
// (service_monitor.h).
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/matrix_extension.h"
#include "cli/command.h"
#include "server/daemon/reloader.h"
#include "server/daemon/server.h"
#include "server/daemon/service_monitor.h"
#include "server/daemon/systemd_notifier.h"
#include "server/observability/logging.h"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

// The command line's choices, applied over the config file at start and at
// every reload.
struct ServeFlags {
  std::string config_path, repository, device;
  int grpc_port = -1, metrics_port = -1, http_port = -1, instance = -1;
  std::optional<MatrixExtension> matrix_extension;
  bool check_only = false;
};

absl::StatusOr<ServerSettings> ReadSettings(const ServeFlags& f) {
  auto settings = f.config_path.empty() ? DefaultServerConfig() : LoadServerConfig(f.config_path);
  if (!settings.ok()) return settings.status();
  if (!f.repository.empty())
    settings->repository_path = std::filesystem::absolute(f.repository).string();
  if (f.instance >= 0) {
    settings->device = absl::StrCat(f.instance);
    if (settings->grpc_port != 0) settings->grpc_port += 10 * f.instance;
    if (settings->metrics_port != 0) settings->metrics_port += 10 * f.instance;
    if (settings->http_port > 0) settings->http_port += 10 * f.instance;
    // Each instance its own pipeline cache file: <dir>/<N>/<file> (the
    // template unit's CacheDirectory=vkserve/%i).
    if (settings->pipeline_cache_path && !settings->pipeline_cache_path->empty()) {
      const std::filesystem::path p(*settings->pipeline_cache_path);
      settings->pipeline_cache_path =
          (p.parent_path() / absl::StrCat(f.instance) / p.filename()).string();
    }
  }
  if (!f.device.empty()) settings->device = f.device;
  if (f.matrix_extension) settings->matrix_extension = *f.matrix_extension;
  if (f.grpc_port >= 0) settings->grpc_port = f.grpc_port;
  if (f.metrics_port >= 0) settings->metrics_port = f.metrics_port;
  if (f.http_port >= 0) settings->http_port = f.http_port;
  if (settings->grpc_port > 65535 || settings->metrics_port > 65535 ||
      settings->http_port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--instance ", f.instance, " puts a port beyond 65535"));
  }
  return settings;
}

// SIGHUP: RELOADING=1, the reload, READY=1 with what it did.
void OnReload(Reloader& reloader, ServiceMonitor& monitor, SystemdNotifier& notifier) {
  spdlog::info("received SIGHUP: reloading the config and the model repository");
  monitor.Pause(true);
  notifier.Reloading("reloading the config and the model repository");
  absl::StatusOr<std::string> done = reloader.Reload();
  const std::string serving = monitor.StatusLine();
  notifier.Ready(done.ok() ? absl::StrCat("reloaded (", *done, "); ", serving)
                           : absl::StrCat("reload rejected, running config kept (",
                                          done.status().message().substr(0, 200), "); ", serving));
  monitor.Pause(false);
}

// Where clients find the server, on stdout (scripts read it there).
void PrintAddresses(const Server& server, const ServerSettings& settings) {
  std::printf("vkserve listening on %s\n", server.address().c_str());
  if (server.http_port() != 0) {
    std::printf("KServe v2 HTTP at %s://%s/v2\n", settings.http_tls.enabled() ? "https" : "http",
                server.http_address().c_str());
  }
  if (server.metrics_port() != 0) {
    std::printf("metrics at %s://%s/metrics\n", settings.metrics_tls.enabled() ? "https" : "http",
                server.metrics_address().c_str());
  }
  std::fflush(stdout);
}

// The signals the main thread waits for; blocked in every thread.
sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

// Waits until SIGTERM or SIGINT arrives and returns it; each SIGHUP
// meanwhile reloads the config.
int WaitForStop(const sigset_t& signals, Reloader& reloader, ServiceMonitor& monitor,
                SystemdNotifier& notifier) {
  for (;;) {
    int received = 0;
    if (sigwait(&signals, &received) != 0) continue;
    if (received != SIGHUP) return received;
    OnReload(reloader, monitor, notifier);
  }
}

int Serve(const ServeFlags& flags) {
  // Before any thread starts (logging's included), so that every thread
  // inherits the block and only WaitForStop takes these signals.
  const sigset_t signals = StopSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  auto settings = ReadSettings(flags);
  if (!settings.ok()) {
    std::fprintf(stderr, "vkserve serve: %s\n", std::string(settings.status().message()).c_str());
    return kExitFailure;
  }
  if (flags.check_only) {
    std::printf("config OK: %s (repository %s)\n", settings->source.c_str(),
                settings->repository_path.c_str());
    return 0;
  }
  ConfigureLogging(settings->log_level, settings->log_format);
  spdlog::info("config: {}", settings->source);

  SystemdNotifier notifier;
  notifier.Status("loading the model repository");
  ServerHooks hooks;
  hooks.on_model_loading = [&notifier](int i, int n, const std::string& name) {
    notifier.Status(absl::StrCat("loading model ", i, " of ", n, ": ", name.substr(0, 128)));
  };
  auto server = Server::Start(*settings, hooks);
  if (!server.ok()) {
    spdlog::error("start-up failed: {}", server.status().ToString());
    return kExitFailure;
  }
  PrintAddresses(**server, *settings);
  ServiceMonitor monitor(server->get(), &notifier);
  monitor.Start();
  notifier.Ready(monitor.StatusLine());
  Reloader reloader(server->get(), *settings, [&flags] { return ReadSettings(flags); });

  const int sig = WaitForStop(signals, reloader, monitor, notifier);
  spdlog::info("received {}", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  monitor.Pause(true);
  notifier.Stopping(absl::StrCat("draining: answering accepted requests (up to ",
                                 absl::FormatDuration(settings->exit_timeout), ")"));
  (*server)->Shutdown();
  monitor.Stop();
  server->reset();
  return 0;
}

}  // namespace

CommandRunner AddServeCommand(CLI::App& command) {
  auto flags = std::make_shared<ServeFlags>();
  command
      .add_option("--config", flags->config_path,
                  "the server config (text protobuf; docs/configuration.md); default: the "
                  "built-in one, serving the example repository")
      ->type_name("FILE");
  command
      .add_option("--model-repository", flags->repository,
                  "the model repository (overrides the config's)")
      ->type_name("DIR");
  command
      .add_option("--grpc-port", flags->grpc_port,
                  "the gRPC port; 0: a free one (overrides the config's)")
      ->type_name("N")
      ->check(NumberBetween(0, 65535, /*whole=*/true));
  command
      .add_option("--metrics-port", flags->metrics_port,
                  "the metrics port; 0: a free one (overrides the config's)")
      ->type_name("N")
      ->check(NumberBetween(0, 65535, /*whole=*/true));
  command
      .add_option("--http-port", flags->http_port,
                  "serve the KServe v2 REST API on this port (off unless set here or in the "
                  "config's http block); 0: a free one")
      ->type_name("N")
      ->check(NumberBetween(0, 65535, /*whole=*/true));
  command
      .add_option("--device", flags->device,
                  "the GPU: an index, a name substring or a UUID, as 'vkserve devices' lists "
                  "them (overrides gpu.device)")
      ->type_name("SEL");
  command
      .add_option_function<std::string>(
          "--matrix-extension",
          [flags](const std::string& text) {
            // The check below refuses other names.
            if (absl::StatusOr<MatrixExtension> e = ParseMatrixExtension(text); e.ok()) {
              flags->matrix_extension = *e;
            }
          },
          "the Vulkan extension tensor-core kernels run through on every device: auto "
          "(VK_KHR_cooperative_matrix where offered, else VK_NV_cooperative_matrix), nv or khr; "
          "nv or khr fail start-up on a device without it (overrides gpu.matrix_extension)")
      ->type_name("auto|nv|khr")
      ->check(CLI::IsMember({"auto", "nv", "khr"}).description(""));
  command
      .add_option("--instance", flags->instance,
                  "one of several processes, one per GPU: device N (unless --device), the "
                  "config's ports + 10*N (unless given) and the pipeline cache in DIR/N/ of "
                  "gpu.pipeline_cache_path")
      ->type_name("N")
      ->check(NumberBetween(0, 999, /*whole=*/true));
  command.add_flag("--check-config", flags->check_only,
                   "validate the config and exit (0 when valid)");
  command.footer("example: vkserve serve --config /etc/vkserve/server.pbtxt");
  return [flags] { return Serve(*flags); };
}

}  // namespace vkserve
