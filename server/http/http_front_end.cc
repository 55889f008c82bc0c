// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/http/http_front_end.h"

#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "base/quote.h"
#include "boost/beast/http.hpp"
#include "nlohmann/json.hpp"
#include "server/grpc/infer_request.h"
#include "server/http/kserve_json.h"
#include "server/tls/tls_credentials.h"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

namespace http = boost::beast::http;
using json = nlohmann::json;

// "%2F" and friends; false for a malformed escape.
bool PercentDecode(absl::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out->push_back(in[i]);
      continue;
    }
    int value = 0;
    if (i + 2 >= in.size()) return false;
    for (int k = 1; k <= 2; ++k) {
      const char c = in[i + k];
      int digit = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
      if (digit < 0) return false;
      value = value * 16 + digit;
    }
    out->push_back(static_cast<char>(value));
    i += 2;
  }
  return true;
}

HttpResponse JsonResponse(const json& body, unsigned status = 200) {
  HttpResponse response{static_cast<http::status>(status), 11};
  response.set(http::field::content_type, "application/json");
  response.body() = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return response;
}

HttpResponse ErrorOf(const absl::Status& status) {
  return HttpErrorResponse(HttpStatusOf(status.code()), BoundedMessage(status.message()), true);
}

HttpResponse Empty(unsigned status) { return HttpResponse{static_cast<http::status>(status), 11}; }

}  // namespace

unsigned HttpStatusOf(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kAlreadyExists:
      return 409;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kUnimplemented:
      return 501;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kDataLoss:
      return 500;
    default:  // invalid argument, failed precondition, out of range, cancelled, aborted
      return 400;
  }
}

// The routes: each request into the gRPC request message of its RPC, the
// InferenceService's answer back into Triton's JSON.
class HttpFrontEnd::Routes {
 public:
  Routes(InferenceService* service, const Authorizer* authorizer)
      : service_(service), authorizer_(authorizer) {}

  void Handle(HttpRequest&& request, HttpResponder respond) {
    in_flight_->fetch_add(1);
    // The count is shared: an answer may come after the front end is gone.
    auto done = [in_flight = in_flight_, respond = std::move(respond)](HttpResponse response) {
      respond(std::move(response));
      in_flight->fetch_sub(1);
    };
    Route(std::move(request), std::move(done));
  }

  int in_flight() const { return in_flight_->load(); }

 private:
  using Done = std::function<void(HttpResponse)>;

  // Splits the path into decoded segments; false when one does not decode.
  static bool Segments(absl::string_view target, std::vector<std::string>* out) {
    target = target.substr(0, target.find('?'));
    for (absl::string_view part : absl::StrSplit(target, '/', absl::SkipEmpty())) {
      std::string decoded;
      if (!PercentDecode(part, &decoded)) return false;
      out->push_back(std::move(decoded));
    }
    return true;
  }

  absl::Status Authorize(std::string_view rpc, const HttpRequest& request) const {
    CallerCredentials caller;
    for (const auto& field : request.message) {
      if (field.name() == http::field::authorization) {
        caller.authorization.emplace_back(field.value().data(), field.value().size());
      }
    }
    caller.identities = request.client_identities;
    absl::Status s = authorizer_->Authorize(rpc, caller);
    if (!s.ok()) spdlog::debug("HTTP {} refused: {}", rpc, s.ToString());
    return s;
  }

  void Route(HttpRequest&& request, Done done) {
    const http::verb verb = request.message.method();
    std::vector<std::string> seg;
    const auto target = request.message.target();
    if (!Segments(absl::string_view(target.data(), target.size()), &seg) || seg.empty() ||
        seg[0] != "v2") {
      return done(ErrorOf(absl::NotFoundError("no such route (the KServe v2 API is under /v2)")));
    }
    auto method_is = [&](http::verb want) {
      if (verb == want) return true;
      HttpResponse r = HttpErrorResponse(
          405, absl::StrCat("use ", std::string(http::to_string(want)), " for this route"), true);
      r.set(http::field::allow, http::to_string(want));
      done(std::move(r));
      return false;
    };
    const size_t n = seg.size();
    if (n == 1) {
      if (!method_is(http::verb::get)) return;
      return Unary<inference::ServerMetadataRequest, inference::ServerMetadataResponse>(
          "ServerMetadata", request, {}, &InferenceService::DoServerMetadata, done);
    }
    if (seg[1] == "health" && n == 3 && (seg[2] == "live" || seg[2] == "ready")) {
      if (!method_is(http::verb::get)) return;
      // Open like grpc.health.v1: orchestrator probes carry no credentials.
      return done(Empty(seg[2] == "live" || service_->ready() ? 200 : 400));
    }
    if (seg[1] == "models") return Models(seg, std::move(request), method_is, done);
    if (seg[1] == "repository") return Repository(seg, request, method_is, done);
    if (seg[1] == "systemsharedmemory") return SharedMemory(seg, request, method_is, done);
    done(ErrorOf(absl::NotFoundError("no such route")));
  }

  template <typename MethodIs>
  void Models(const std::vector<std::string>& seg, HttpRequest&& request, MethodIs& method_is,
              const Done& done) {
    const size_t n = seg.size();
    if (n == 3 && seg[2] == "stats") {
      if (!method_is(http::verb::get)) return;
      return Unary<inference::ModelStatisticsRequest, inference::ModelStatisticsResponse>(
          "ModelStatistics", request, {}, &InferenceService::DoModelStatistics, done);
    }
    if (n < 3) return done(ErrorOf(absl::NotFoundError("no such route")));
    const std::string& model = seg[2];
    std::string version;
    size_t next = 3;
    if (n >= 5 && seg[3] == "versions") {
      version = seg[4];
      next = 5;
    }
    const std::string action = n > next ? seg[next] : "";
    if (n > next + 1) return done(ErrorOf(absl::NotFoundError("no such route")));
    if (action.empty()) {
      if (!method_is(http::verb::get)) return;
      inference::ModelMetadataRequest req;
      req.set_name(model);
      req.set_version(version);
      return Unary<inference::ModelMetadataRequest, inference::ModelMetadataResponse>(
          "ModelMetadata", request, req, &InferenceService::DoModelMetadata, done);
    }
    if (action == "ready") {
      if (!method_is(http::verb::get)) return;
      if (absl::Status s = Authorize("ModelReady", request); !s.ok()) return done(ErrorOf(s));
      inference::ModelReadyRequest req;
      req.set_name(model);
      req.set_version(version);
      inference::ModelReadyResponse resp;
      absl::Status s = service_->DoModelReady(req, &resp);
      if (!s.ok()) return done(ErrorOf(s));
      return done(Empty(resp.ready() ? 200 : 400));
    }
    if (action == "config") {
      if (!method_is(http::verb::get)) return;
      inference::ModelConfigRequest req;
      req.set_name(model);
      req.set_version(version);
      inference::ModelConfigResponse resp;
      if (absl::Status s = Authorize("ModelConfig", request); !s.ok()) return done(ErrorOf(s));
      absl::Status s = service_->DoModelConfig(req, &resp);
      if (!s.ok()) return done(ErrorOf(s));
      return done(JsonResponse(ProtoToJson(resp.config())));
    }
    if (action == "stats") {
      if (!method_is(http::verb::get)) return;
      inference::ModelStatisticsRequest req;
      req.set_name(model);
      req.set_version(version);
      return Unary<inference::ModelStatisticsRequest, inference::ModelStatisticsResponse>(
          "ModelStatistics", request, req, &InferenceService::DoModelStatistics, done);
    }
    if (action == "infer") {
      if (!method_is(http::verb::post)) return;
      return Infer(model, version, std::move(request), done);
    }
    done(ErrorOf(absl::NotFoundError("no such route")));
  }

  void Infer(const std::string& model, const std::string& version, HttpRequest&& request,
             const Done& done) {
    if (absl::Status s = Authorize("ModelInfer", request); !s.ok()) return done(ErrorOf(s));
    int64_t json_length = -1;
    if (auto it = request.message.find("Inference-Header-Content-Length");
        it != request.message.end()) {
      if (!absl::SimpleAtoi(absl::string_view(it->value().data(), it->value().size()),
                            &json_length) ||
          json_length < 0) {
        return done(ErrorOf(absl::InvalidArgumentError(
            "Inference-Header-Content-Length must be a whole number of bytes")));
      }
    }
    absl::StatusOr<HttpInferRequest> decoded =
        DecodeInferRequest(request.message.body(), json_length, model, version);
    if (!decoded.ok()) return done(ErrorOf(decoded.status()));
    // The body's bytes are in the request now; free them before the run.
    request.message.body() = std::string();
    auto call = std::make_shared<std::pair<HttpInferRequest, inference::ModelInferResponse>>(
        *std::move(decoded), inference::ModelInferResponse());
    service_->Infer(
        &call->first.request, &call->second, absl::InfiniteFuture(), [] { return false; },
        // Not `this`: the answer may come after the front end has stopped
        // (the service outlives every run it started).
        [service = service_, call, done](absl::Status status) {
          if (!status.ok()) return done(ErrorOf(status));
          absl::StatusOr<EncodedInferResponse> encoded =
              EncodeInferResponse(call->second, call->first);
          if (service->output_buffers() != nullptr) {
            RecycleOutputBuffers(&call->second, service->output_buffers().get());
          }
          if (!encoded.ok()) return done(ErrorOf(encoded.status()));
          HttpResponse response{http::status::ok, 11};
          if (encoded->binary) {
            response.set(http::field::content_type, "application/octet-stream");
            response.set("Inference-Header-Content-Length", std::to_string(encoded->json_length));
          } else {
            response.set(http::field::content_type, "application/json");
          }
          response.body() = std::move(encoded->body);
          done(std::move(response));
        });
  }

  template <typename MethodIs>
  void Repository(const std::vector<std::string>& seg, const HttpRequest& request,
                  MethodIs& method_is, const Done& done) {
    const size_t n = seg.size();
    absl::StatusOr<json> body = ParseJsonObject(request.message.body());
    if (n == 3 && seg[2] == "index") {
      if (!method_is(http::verb::post)) return;
      if (absl::Status s = Authorize("RepositoryIndex", request); !s.ok()) return done(ErrorOf(s));
      if (!body.ok()) return done(ErrorOf(body.status()));
      inference::RepositoryIndexRequest req;
      if (auto r = body->find("ready"); r != body->end()) {
        if (!r->is_boolean())
          return done(ErrorOf(absl::InvalidArgumentError("'ready' must be a boolean")));
        req.set_ready(r->get<bool>());
      }
      if (auto r = body->find("repository_name"); r != body->end() && r->is_string()) {
        req.set_repository_name(r->get<std::string>());
      }
      inference::RepositoryIndexResponse resp;
      absl::Status s = service_->DoRepositoryIndex(req, &resp);
      if (!s.ok()) return done(ErrorOf(s));
      return done(JsonResponse(ProtoToJson(resp)["models"]));
    }
    if (n == 5 && seg[2] == "models" && (seg[4] == "load" || seg[4] == "unload")) {
      if (!method_is(http::verb::post)) return;
      const bool load = seg[4] == "load";
      if (absl::Status s =
              Authorize(load ? "RepositoryModelLoad" : "RepositoryModelUnload", request);
          !s.ok()) {
        return done(ErrorOf(s));
      }
      if (!body.ok()) return done(ErrorOf(body.status()));
      auto answer = [done](absl::Status s) { done(s.ok() ? Empty(200) : ErrorOf(s)); };
      if (load) {
        inference::RepositoryModelLoadRequest req;
        req.set_model_name(seg[3]);
        if (auto p = body->find("parameters");
            p != body->end() && !(p->is_object() && p->empty())) {
          (*req.mutable_parameters())["parameters"].set_string_param(p->dump());
        }
        return service_->DoRepositoryModelLoad(req, answer);
      }
      inference::RepositoryModelUnloadRequest req;
      req.set_model_name(seg[3]);
      return service_->DoRepositoryModelUnload(req, answer);
    }
    done(ErrorOf(absl::NotFoundError("no such route")));
  }

  template <typename MethodIs>
  void SharedMemory(const std::vector<std::string>& seg, const HttpRequest& request,
                    MethodIs& method_is, const Done& done) {
    const size_t n = seg.size();
    std::string region;
    size_t next = 2;
    if (n >= 4 && seg[2] == "region") {
      region = seg[3];
      next = 4;
    }
    if (n != next + 1) return done(ErrorOf(absl::NotFoundError("no such route")));
    const std::string& action = seg[next];
    if (action == "status") {
      if (!method_is(http::verb::get)) return;
      inference::SystemSharedMemoryStatusRequest req;
      req.set_name(region);
      if (absl::Status s = Authorize("SystemSharedMemoryStatus", request); !s.ok()) {
        return done(ErrorOf(s));
      }
      inference::SystemSharedMemoryStatusResponse resp;
      absl::Status s = service_->DoSystemSharedMemoryStatus(req, &resp);
      if (!s.ok()) return done(ErrorOf(s));
      json regions = json::array();
      for (const auto& [name, r] : resp.regions()) regions.push_back(ProtoToJson(r));
      return done(JsonResponse(regions));
    }
    if (action == "unregister") {
      if (!method_is(http::verb::post)) return;
      inference::SystemSharedMemoryUnregisterRequest req;
      req.set_name(region);
      return Unary<inference::SystemSharedMemoryUnregisterRequest,
                   inference::SystemSharedMemoryUnregisterResponse>(
          "SystemSharedMemoryUnregister", request, req,
          &InferenceService::DoSystemSharedMemoryUnregister, done, /*empty=*/true);
    }
    if (action == "register" && !region.empty()) {
      if (!method_is(http::verb::post)) return;
      if (absl::Status s = Authorize("SystemSharedMemoryRegister", request); !s.ok()) {
        return done(ErrorOf(s));
      }
      absl::StatusOr<json> body = ParseJsonObject(request.message.body());
      if (!body.ok()) return done(ErrorOf(body.status()));
      inference::SystemSharedMemoryRegisterRequest req;
      req.set_name(region);
      auto key = body->find("key");
      auto offset = body->find("offset");
      auto size = body->find("byte_size");
      if (key == body->end() || !key->is_string() || size == body->end() ||
          !size->is_number_unsigned() || (offset != body->end() && !offset->is_number_unsigned())) {
        return done(ErrorOf(absl::InvalidArgumentError(
            "register needs 'key' (a string), 'byte_size' and optionally 'offset' (integers >= "
            "0)")));
      }
      req.set_key(key->get<std::string>());
      req.set_byte_size(size->get<uint64_t>());
      if (offset != body->end()) req.set_offset(offset->get<uint64_t>());
      if (absl::Status s = authorizer_->CheckSharedMemoryKey(req.key()); !s.ok()) {
        return done(ErrorOf(s));
      }
      inference::SystemSharedMemoryRegisterResponse resp;
      absl::Status s = service_->DoSystemSharedMemoryRegister(req, &resp);
      return done(s.ok() ? Empty(200) : ErrorOf(s));
    }
    done(ErrorOf(absl::NotFoundError("no such route")));
  }

  // An RPC answered at once: authorized, run, its response as JSON (or an
  // empty 200 when `empty`).
  template <typename Req, typename Resp>
  void Unary(std::string_view rpc, const HttpRequest& request, const Req& req,
             absl::Status (InferenceService::*method)(const Req&, Resp*), const Done& done,
             bool empty = false) {
    if (absl::Status s = Authorize(rpc, request); !s.ok()) return done(ErrorOf(s));
    Resp resp;
    absl::Status s = (service_->*method)(req, &resp);
    if (!s.ok()) return done(ErrorOf(s));
    done(empty ? Empty(200) : JsonResponse(ProtoToJson(resp)));
  }

  InferenceService* const service_;
  const Authorizer* const authorizer_;
  const std::shared_ptr<std::atomic<int>> in_flight_ = std::make_shared<std::atomic<int>>(0);
};

HttpFrontEnd::HttpFrontEnd(const ServerSettings& settings, InferenceService* service,
                           const Authorizer* authorizer)
    : settings_(settings), routes_(std::make_unique<Routes>(service, authorizer)) {}

HttpFrontEnd::~HttpFrontEnd() { Stop(absl::ZeroDuration()); }

absl::StatusOr<std::unique_ptr<HttpFrontEnd>> HttpFrontEnd::Start(const ServerSettings& settings,
                                                                  InferenceService* service,
                                                                  const Authorizer* authorizer) {
  auto front = std::unique_ptr<HttpFrontEnd>(new HttpFrontEnd(settings, service, authorizer));
  HttpServerOptions options;
  options.name = "http";
  options.address = settings.http_address;
  options.port = settings.http_port;
  options.threads = 4;
  options.max_connections = settings.http_max_connections;
  options.request_timeout_ms = settings.http_request_timeout_ms;
  options.max_body_bytes = static_cast<uint64_t>(std::max<int64_t>(settings.max_message_bytes, 0));
  std::optional<HttpTlsMaterial> tls;
  if (settings.http_tls.enabled()) {
    absl::StatusOr<TlsMaterial> material = LoadTlsMaterial(settings.http_tls, "http");
    if (!material.ok()) return material.status();
    tls = HttpTlsMaterial{material->identity_pem, material->client_ca_pem};
    spdlog::info("HTTP TLS{}: {}",
                 settings.http_tls.client_ca_path.empty() ? "" : " (client certificates required)",
                 material->summary);
  }
  Routes* routes = front->routes_.get();
  absl::StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(
      options, tls ? &*tls : nullptr, [routes](HttpRequest&& request, HttpResponder respond) {
        routes->Handle(std::move(request), std::move(respond));
      });
  if (!server.ok()) return server.status();
  front->server_ = *std::move(server);
  return front;
}

void HttpFrontEnd::Stop(absl::Duration wait) {
  if (stopped_ || server_ == nullptr) return;
  stopped_ = true;
  const absl::Time end = absl::Now() + wait;
  while (routes_->in_flight() > 0 && absl::Now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  server_->Stop();
}

std::string HttpFrontEnd::address() const {
  const std::string& host = settings_.http_address;
  if (host.find(':') != std::string::npos) return absl::StrCat("[", host, "]:", port());
  return absl::StrCat(host, ":", port());
}

absl::Status HttpFrontEnd::ReloadTls() {
  if (!settings_.http_tls.enabled()) {
    return absl::FailedPreconditionError("HTTP TLS is not configured");
  }
  absl::StatusOr<TlsMaterial> material = LoadTlsMaterial(settings_.http_tls, "http");
  if (!material.ok()) return material.status();
  return server_->ReloadTls(HttpTlsMaterial{material->identity_pem, material->client_ca_pem});
}

}  // namespace vkserve
