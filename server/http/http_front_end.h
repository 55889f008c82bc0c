// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// HttpFrontEnd: the KServe v2 REST API as Triton serves it (GET /v2,
// /v2/health/{live,ready}, /v2/models/{m}[/versions/{v}][/ready|/config|
// /stats], POST .../infer with JSON tensors or the binary-data extension,
// /v2/models/stats, /v2/repository/index, /v2/repository/models/{m}/
// {load,unload}, /v2/systemsharedmemory/...), on an HttpServer
// (http_server.h) with http.* of the server config.
//
// One request path under gRPC and HTTP: every route becomes the protobuf
// request of its gRPC RPC and is answered by the same InferenceService
// method (the transport-free Do* methods and Infer()), after the same
// authorization (Authorizer::Authorize with the RPC's name, the
// Authorization header's bearer token and the mutual-TLS client
// certificate's names). So limits, roles, metrics, statistics and error
// messages are the gRPC front end's; a failed call's absl status code maps
// to an HTTP status (kserve_json.h writes {"error": "<message>"}). The
// health routes, like grpc.health.v1, need no credentials.
//
// Thread-safe.
#ifndef VKSERVE_SERVER_HTTP_HTTP_FRONT_END_H_
#define VKSERVE_SERVER_HTTP_HTTP_FRONT_END_H_

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "config/server_config.h"
#include "server/grpc/authorization.h"
#include "server/grpc/grpc_service.h"
#include "server/http/http_server.h"

namespace vkserve {

// The HTTP status Triton's HTTP front end gives a failed call of `code`.
unsigned HttpStatusOf(absl::StatusCode code);

class HttpFrontEnd {
 public:
  // Listens on http.address:http.port (settings.http_enabled() must hold).
  // `service` and `authorizer` must outlive the front end.
  static absl::StatusOr<std::unique_ptr<HttpFrontEnd>> Start(const ServerSettings& settings,
                                                             InferenceService* service,
                                                             const Authorizer* authorizer);
  ~HttpFrontEnd();  // Stop(absl::ZeroDuration())

  // Waits up to `wait` for the requests being answered, then closes every
  // connection. Idempotent.
  void Stop(absl::Duration wait);
  int port() const { return server_->port(); }
  std::string address() const;  // "127.0.0.1:8000"
  // Re-reads http.tls's files (SIGHUP); FAILED_PRECONDITION without TLS.
  absl::Status ReloadTls();

 private:
  class Routes;
  HttpFrontEnd(const ServerSettings& settings, InferenceService* service,
               const Authorizer* authorizer);

  const ServerSettings settings_;
  std::unique_ptr<Routes> routes_;
  std::unique_ptr<HttpServer> server_;
  bool stopped_ = false;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_HTTP_HTTP_FRONT_END_H_
