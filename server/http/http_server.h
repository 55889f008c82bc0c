// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// HttpServer: an HTTP/1.1 server on Boost.Beast and Boost.Asio, plain or
// over TLS (asio::ssl on the system's OpenSSL 3), for untrusted clients. It
// carries the KServe v2 REST front end (http_front_end.h) and the metrics
// endpoint (metrics_endpoint.h); what a request means is its handler's
// business.
//
// Limits, all applied before the bytes they bound are read:
//  - the request head (request line and headers) up to max_header_bytes:
//    431 beyond;
//  - the body up to max_body_bytes, checked against Content-Length before
//    any of the body is read or allocated: 413 beyond; chunked bodies are
//    bounded the same way as they arrive;
//  - one deadline, request_timeout_ms, for the TLS handshake, for an idle
//    keep-alive connection plus the next request head, and another for its
//    body and for writing each response: slow (byte-at-a-time) and idle
//    clients are cut off;
//  - at most max_connections open at once: beyond, a new client gets 503
//    and is disconnected (refuse_when_full) or waits in the kernel's accept
//    queue until a slot frees;
//  - allowed_networks: other peers are closed as they are accepted.
// A request that does not parse gets 400 and the connection closes. Keep-
// alive is honoured unless disabled; pipelined requests are read one at a
// time (the next only after the previous answer is written), so they are
// answered in order. The answer to a HEAD request goes out as its handler
// gives it, less the body (Content-Length stays the body's).
//
// Shape: one io_context run by `threads` threads; each connection on a
// strand of its own; all I/O asynchronous, so a connection holds a slot,
// not a thread. The handler is called on a connection's strand and must
// not block; it answers once through the responder, from any thread.
//
// Thread-safe.
#ifndef VKSERVE_SERVER_HTTP_HTTP_SERVER_H_
#define VKSERVE_SERVER_HTTP_HTTP_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "boost/beast/http/message.hpp"
#include "boost/beast/http/string_body.hpp"

namespace vkserve {

// PEM text of a TLS identity (chain, then private key) and, for mutual TLS,
// the client CAs.
struct HttpTlsMaterial {
  std::string identity_pem;
  std::string client_ca_pem;  // "": client certificates are not requested
};

struct HttpServerOptions {
  std::string name = "http";          // log lines and start-up errors
  std::string address = "127.0.0.1";  // an IPv4 or IPv6 literal or "localhost"
  int port = 0;                       // 0: the system picks one (see port())
  int threads = 2;
  int max_connections = 64;
  bool refuse_when_full = true;  // else full: later clients wait to be accepted
  int request_timeout_ms = 30000;
  uint32_t max_header_bytes = 16384;
  uint64_t max_body_bytes = uint64_t{64} << 20;
  bool keep_alive = true;  // false: every response closes its connection
  // "a.b.c.d/n" blocks that may connect; empty: everyone.
  std::vector<std::string> allowed_networks;
  // Errors the server answers itself (400, 413, 431, 503): body and type.
  bool json_errors = true;  // {"error": "..."}; else "<reason>\n" as text/plain
};

using HttpRequestMessage = boost::beast::http::request<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;

struct HttpRequest {
  HttpRequestMessage message;
  // The verified client certificate's SANs and subject CN (mutual TLS).
  std::vector<std::string> client_identities;
};

// Answers a request; call exactly once, from any thread.
using HttpResponder = std::function<void(HttpResponse)>;
using HttpHandler = std::function<void(HttpRequest&& request, HttpResponder respond)>;

// An error response as HttpServer writes its own: `status`, and `message`
// as {"error": message} (json) or "<reason>\n" (text).
HttpResponse HttpErrorResponse(unsigned status, const std::string& message, bool json);

class HttpServer {
 public:
  // Listens and starts the threads; with `tls`, serves HTTPS.
  // INVALID_ARGUMENT for bad options or material, UNAVAILABLE naming the
  // address when it cannot listen. `handler` must outlive the server.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options,
                                                           const HttpTlsMaterial* tls,
                                                           HttpHandler handler);
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Closes the listener and every connection and joins the threads; an
  // answer given later is dropped. Idempotent; not from a server thread.
  void Stop();
  int port() const;  // 0 after Stop()
  // New TLS material for connections accepted from now on.
  // FAILED_PRECONDITION when serving plain HTTP.
  absl::Status ReloadTls(const HttpTlsMaterial& tls);

  class Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_HTTP_HTTP_SERVER_H_
