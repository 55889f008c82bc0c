// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// TlsMetricsEndpoint: GET /metrics over HTTPS (optionally mutual TLS), for
// metrics.tls. Debian 12's civetweb, which serves the plain endpoint
// (metrics.h), cannot do TLS with OpenSSL 3, so this one is Boost.Asio with
// asio::ssl over the system OpenSSL. A scrape's body is prometheus-cpp's
// exposer_* families (this endpoint's scrape count, bytes and latency, as
// prometheus-cpp's own endpoint keeps them), then what `render` returns
// (Metrics::Render()): the same families the plain endpoint serves.
//
// Shape: one io_context run by a small fixed pool of threads; all I/O is
// asynchronous, so a connection holds a slot, not a thread. Each connection:
// the allowed_networks check as it is accepted (others are closed before
// the handshake), the TLS handshake, one HTTP/1.1 request read up to
// kMaxRequestHeaderBytes, one response, Connection: close. One deadline,
// request_timeout_ms from accept to the request's last byte, and another as
// long for writing the response, close idle, byte-at-a-time and
// never-handshaking clients. At most max_connections are open at once;
// while full, the endpoint stops accepting and later clients wait in the
// kernel's accept queue until a slot frees.
//
// Reload() re-reads the certificate files (SIGHUP); connections accepted
// after it use the new material, a bad set is refused and the old one stays.
//
// Thread-safe.
#ifndef VKSERVE_SERVER_DAEMON_TLS_METRICS_ENDPOINT_H_
#define VKSERVE_SERVER_DAEMON_TLS_METRICS_ENDPOINT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "config/server_config.h"

namespace vkserve {

struct TlsMetricsOptions {
  std::string address = "127.0.0.1";  // an IPv4 literal or "localhost"
  int port = 0;                       // 0: the system picks one (see port())
  int max_connections = 8;            // open at once
  int request_timeout_ms = 2000;      // accept to request end; and the response
  // "a.b.c.d/n" blocks that may connect (as ServerSettings normalises
  // them); empty: everyone.
  std::vector<std::string> allowed_networks;
  TlsFiles files;  // REQUIRES files.enabled(); client_ca set: mutual TLS
};

// The endpoint options `settings` asks for (metrics.*).
TlsMetricsOptions TlsMetricsOptionsOf(const ServerSettings& settings);

// The largest request head (request line and headers) read; a longer one
// gets 431.
inline constexpr size_t kMaxRequestHeaderBytes = 8192;

class TlsMetricsEndpoint {
 public:
  // Loads and checks the TLS files, listens and starts the threads.
  // INVALID_ARGUMENT for bad files or options (naming them), UNAVAILABLE
  // naming the address when it cannot listen. `render` is called on an
  // endpoint thread for every scrape; it must be thread-safe and outlive
  // the endpoint.
  static absl::StatusOr<std::unique_ptr<TlsMetricsEndpoint>> Start(
      const TlsMetricsOptions& options, std::function<std::string()> render);
  ~TlsMetricsEndpoint();  // Stop()
  TlsMetricsEndpoint(const TlsMetricsEndpoint&) = delete;
  TlsMetricsEndpoint& operator=(const TlsMetricsEndpoint&) = delete;

  // Closes the listener and every connection and joins the threads.
  // Idempotent; must not be called from an endpoint thread (render).
  void Stop();

  // The listening port (0 after Stop()).
  int port() const;

  // Re-reads the files. OK: connections accepted from now on get the new
  // material. Else the old material stays and the error says why.
  absl::Status Reload();

  // The leaf certificate now served: subject, expiry, SHA-256 (log lines).
  std::string summary() const;

 private:
  class Impl;
  explicit TlsMetricsEndpoint(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_DAEMON_TLS_METRICS_ENDPOINT_H_
