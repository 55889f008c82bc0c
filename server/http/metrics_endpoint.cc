// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/http/metrics_endpoint.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "base/status_macros.h"
#include "boost/beast/http.hpp"
#include "prometheus/counter.h"
#include "prometheus/registry.h"
#include "prometheus/summary.h"
#include "prometheus/text_serializer.h"
#include "server/tls/tls_credentials.h"

namespace vkserve {
namespace {

namespace http = boost::beast::http;

// The exposition format Prometheus negotiates by default, as prometheus-cpp
// names it.
constexpr char kContentType[] = "text/plain; version=0.0.4; charset=utf-8";
// Scrapes carry no body and a short head: the largest head read (431 beyond).
constexpr uint32_t kMaxHeaderBytes = 8192;
constexpr uint64_t kMaxBodyBytes = 4096;
// The work is asynchronous I/O and one render per scrape: two threads keep
// a slow render from stalling handshakes.
constexpr int kThreads = 2;

HttpServerOptions ServerOptionsOf(const ServerSettings& settings) {
  HttpServerOptions options;
  options.name = "metrics";
  options.address = settings.metrics_address;
  options.port = settings.metrics_port;
  options.threads = kThreads;
  options.max_connections = std::max(settings.metrics_max_connections, 1);
  options.refuse_when_full = false;
  options.request_timeout_ms = settings.metrics_request_timeout_ms;
  options.max_header_bytes = kMaxHeaderBytes;
  options.max_body_bytes = kMaxBodyBytes;
  options.keep_alive = false;
  options.allowed_networks = settings.metrics_allowed_networks;
  options.json_errors = false;
  return options;
}

absl::StatusOr<TlsMaterial> LoadMaterial(const ServerSettings& settings) {
  return LoadTlsMaterial(settings.metrics_tls, "metrics");
}

}  // namespace

// The endpoint's own figures under prometheus-cpp's names and units, the
// families its pull exposer kept (docs/observability.md mentions them), and
// the answer to each request.
class MetricsEndpoint::Scrapes {
 public:
  explicit Scrapes(const Metrics* metrics)
      : metrics_(metrics),
        bytes_(prometheus::BuildCounter()
                   .Name("exposer_transferred_bytes_total")
                   .Help("Transferred bytes to metrics services")
                   .Register(registry_)
                   .Add({})),
        scrapes_(prometheus::BuildCounter()
                     .Name("exposer_scrapes_total")
                     .Help("Number of times metrics were scraped")
                     .Register(registry_)
                     .Add({})),
        latency_us_(
            prometheus::BuildSummary()
                .Name("exposer_request_latencies")
                .Help("Latencies of serving scrape requests, in microseconds")
                .Register(registry_)
                .Add({}, prometheus::Summary::Quantiles{{0.5, 0.05}, {0.9, 0.01}, {0.99, 0.001}})) {
  }

  HttpResponse Answer(const HttpRequestMessage& request) {
    const bool head = request.method() == http::verb::head;
    if (request.method() != http::verb::get && !head) {
      HttpResponse response = HttpErrorResponse(405, "", /*json=*/false);
      // One field per method: the same list as "GET, HEAD".
      response.insert(http::field::allow, "GET");
      response.insert(http::field::allow, "HEAD");
      return response;
    }
    const std::string_view target(request.target().data(), request.target().size());
    if (target.substr(0, target.find('?')) != "/metrics") {
      return HttpErrorResponse(404, "", /*json=*/false);
    }
    HttpResponse response{http::status::ok, 11};
    response.set(http::field::content_type, kContentType);
    response.body() = Render();
    return response;  // HttpServer sends a HEAD answer's headers only
  }

 private:
  // These families (as of before this scrape), then the Metrics' text.
  std::string Render() {
    const auto start = std::chrono::steady_clock::now();
    std::string body = prometheus::TextSerializer().Serialize(registry_.Collect());
    body += metrics_->Render();
    const auto took = std::chrono::steady_clock::now() - start;
    bytes_.Increment(static_cast<double>(body.size()));
    scrapes_.Increment();
    latency_us_.Observe(
        static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(took).count()));
    return body;
  }

  const Metrics* const metrics_;
  prometheus::Registry registry_;
  prometheus::Counter& bytes_;
  prometheus::Counter& scrapes_;
  prometheus::Summary& latency_us_;
};

MetricsEndpoint::MetricsEndpoint(const ServerSettings& settings, const Metrics* metrics)
    : settings_(settings), scrapes_(std::make_unique<Scrapes>(metrics)) {}

MetricsEndpoint::~MetricsEndpoint() { Stop(); }

absl::StatusOr<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(
    const ServerSettings& settings, const Metrics* metrics) {
  auto endpoint = std::unique_ptr<MetricsEndpoint>(new MetricsEndpoint(settings, metrics));
  std::optional<HttpTlsMaterial> tls;
  if (endpoint->tls()) {
    ASSIGN_OR_RETURN(TlsMaterial material, LoadMaterial(settings));
    tls = HttpTlsMaterial{material.identity_pem, material.client_ca_pem};
    MutexLock lock(&endpoint->mutex_);
    endpoint->summary_ = std::move(material.summary);
  }
  Scrapes* scrapes = endpoint->scrapes_.get();
  ASSIGN_OR_RETURN(endpoint->server_,
                   HttpServer::Start(ServerOptionsOf(settings), tls ? &*tls : nullptr,
                                     [scrapes](HttpRequest&& request, HttpResponder respond) {
                                       respond(scrapes->Answer(request.message));
                                     }));
  return endpoint;
}

void MetricsEndpoint::Stop() {
  if (server_ != nullptr) server_->Stop();
}

std::string MetricsEndpoint::summary() const {
  MutexLock lock(&mutex_);
  return summary_;
}

absl::Status MetricsEndpoint::ReloadTls() {
  if (!tls()) return absl::FailedPreconditionError("metrics TLS is not configured");
  ASSIGN_OR_RETURN(TlsMaterial material, LoadMaterial(settings_));
  RETURN_IF_ERROR(
      server_->ReloadTls(HttpTlsMaterial{material.identity_pem, material.client_ca_pem}));
  MutexLock lock(&mutex_);
  summary_ = std::move(material.summary);
  return absl::OkStatus();
}

}  // namespace vkserve
