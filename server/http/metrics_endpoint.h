// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// MetricsEndpoint: the Prometheus scrape endpoint, GET or HEAD /metrics on
// an HttpServer (http_server.h) of its own, with metrics.* of the server
// config: its address and port, HTTPS (and mutual TLS) with metrics.tls,
// and the transport's limits (metrics.max_connections, request_timeout_ms,
// allowed_networks) as the REST front end has them. Other paths get 404,
// other methods 405; errors are "<reason>\n" as text/plain.
//
// A scrape's body, in the text format 0.0.4 (prometheus-cpp's
// TextSerializer): the endpoint's own exposer_* families under
// prometheus-cpp's names (scrape count, bytes and latency), then
// Metrics::Render(). Keep-alive is off, as Prometheus's scrapes need no
// more: a connection carries one request, so an idle connection holds a
// slot no longer than the request timeout. While max_connections are open,
// later clients wait in the kernel's accept queue until a slot frees.
//
// Thread-safe.
#ifndef VKSERVE_SERVER_HTTP_METRICS_ENDPOINT_H_
#define VKSERVE_SERVER_HTTP_METRICS_ENDPOINT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "config/server_config.h"
#include "server/http/http_server.h"
#include "server/observability/metrics.h"

namespace vkserve {

class MetricsEndpoint {
 public:
  // Loads metrics.tls's files (when set), listens on metrics.address:
  // metrics.port (0: the system picks one) and starts serving `metrics`,
  // which must outlive the endpoint. INVALID_ARGUMENT for bad files or
  // options (naming them), UNAVAILABLE naming the address when it cannot
  // listen.
  static absl::StatusOr<std::unique_ptr<MetricsEndpoint>> Start(const ServerSettings& settings,
                                                                const Metrics* metrics);
  ~MetricsEndpoint();  // Stop()
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  // Closes the listener and every connection. Idempotent; not from a
  // server thread.
  void Stop();
  int port() const { return server_->port(); }  // 0 after Stop()
  bool tls() const { return settings_.metrics_tls.enabled(); }
  // The TLS leaf certificate now served (subject, expiry, SHA-256; log
  // lines); "" for plain HTTP.
  std::string summary() const;
  // Re-reads metrics.tls's files (SIGHUP): connections accepted from now on
  // get the new material; a bad set is refused and the old one stays.
  // FAILED_PRECONDITION for plain HTTP.
  absl::Status ReloadTls();

 private:
  class Scrapes;
  MetricsEndpoint(const ServerSettings& settings, const Metrics* metrics);

  const ServerSettings settings_;
  std::unique_ptr<Scrapes> scrapes_;
  std::unique_ptr<HttpServer> server_;
  mutable Mutex mutex_;
  std::string summary_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_HTTP_METRICS_ENDPOINT_H_
