// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Reloader: what `systemctl reload vkserve` (SIGHUP) does to a running
// server. It re-reads the server config; one that does not parse or
// validate is rejected whole and the running one stays. A valid one is
// applied:
//  - the model repository is reconciled (ModelManager::Reconcile): new
//    models loaded, changed ones replaced with no gap in service (the new
//    version loads while the old serves; the old drains once no request
//    holds it), deleted ones unloaded;
//  - the TLS certificates, keys and client CAs of gRPC and of the metrics
//    endpoint are re-read (a bad set is logged and the old one kept);
//  - log level and format take effect.
// Fields that only a restart can change (addresses and ports, the
// repository path and control mode, the GPU, limits, auth grants, trace
// settings, TLS on/off or file paths, exit timeout) keep their running
// values; the summary names each one that differs.
//
// Called from one thread at a time (the signal handler). The server must
// outlive it.
#ifndef VKSERVE_SERVER_DAEMON_RELOADER_H_
#define VKSERVE_SERVER_DAEMON_RELOADER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "config/server_config.h"
#include "server/daemon/server.h"

namespace vkserve {

class Reloader {
 public:
  // `read` re-reads the config as the server was started (file and
  // command-line overrides).
  using ReadSettings = std::function<absl::StatusOr<ServerSettings>()>;
  Reloader(Server* server, ServerSettings running, ReadSettings read);

  // One reload. The error of a rejected config (nothing changed), else a
  // one-line summary of what changed ("models: +a ~b -c; 1 failed").
  absl::StatusOr<std::string> Reload();

  // The names of the restart-only settings that differ between `a` and `b`.
  static std::vector<std::string> RestartOnlyChanges(const ServerSettings& a,
                                                     const ServerSettings& b);

 private:
  // Re-reads the TLS files of every endpoint that has them.
  void ReloadTls();

  Server* const server_;
  ServerSettings running_;
  const ReadSettings read_;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_DAEMON_RELOADER_H_
