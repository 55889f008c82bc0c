// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/daemon/tls_metrics_endpoint.h"

#include <openssl/ssl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "boost/asio/bind_executor.hpp"
#include "boost/asio/dispatch.hpp"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/read_until.hpp"
#include "boost/asio/ssl.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "boost/asio/streambuf.hpp"
#include "boost/asio/write.hpp"
#include "prometheus/counter.h"
#include "prometheus/registry.h"
#include "prometheus/summary.h"
#include "prometheus/text_serializer.h"
#include "server/daemon/http_request_head.h"
#include "server/tls/tls_credentials.h"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using boost::system::error_code;
using Strand = asio::strand<asio::io_context::executor_type>;

// Threads running the io_context: the work is asynchronous I/O and one
// render per scrape, so two keep a slow render from stalling handshakes.
constexpr int kThreads = 2;
constexpr int kListenBacklog = 64;  // as the plain endpoint's civetweb
constexpr auto kAcceptRetry = std::chrono::milliseconds(100);

// An IPv4 block of metrics.allowed_networks.
struct Ipv4Block {
  uint32_t network = 0;
  uint32_t mask = 0;
};

absl::StatusOr<std::vector<Ipv4Block>> ParseBlocks(const std::vector<std::string>& networks) {
  std::vector<Ipv4Block> blocks;
  for (const std::string& text : networks) {
    const std::vector<std::string> parts = absl::StrSplit(text, '/');
    error_code ec;
    const asio::ip::address_v4 address = asio::ip::make_address_v4(parts[0], ec);
    int bits = 32;
    if (ec || parts.size() > 2 || (parts.size() == 2 && !absl::SimpleAtoi(parts[1], &bits)) ||
        bits < 0 || bits > 32) {
      return absl::InvalidArgumentError(
          absl::StrCat("metrics.allowed_networks: \"", text, "\" is not an IPv4 CIDR block"));
    }
    const uint32_t mask = bits == 0 ? 0 : ~uint32_t{0} << (32 - bits);
    blocks.push_back({address.to_uint() & mask, mask});
  }
  return blocks;
}

bool Allowed(const std::vector<Ipv4Block>& blocks, const asio::ip::address& peer) {
  if (blocks.empty()) return true;
  asio::ip::address_v4 v4;
  if (peer.is_v4()) {
    v4 = peer.to_v4();
  } else if (peer.is_v6() && peer.to_v6().is_v4_mapped()) {
    v4 = asio::ip::make_address_v4(asio::ip::v4_mapped, peer.to_v6());
  } else {
    return false;
  }
  const uint32_t bits = v4.to_uint();
  return std::any_of(blocks.begin(), blocks.end(),
                     [bits](const Ipv4Block& b) { return (bits & b.mask) == b.network; });
}

// An SSL context serving `material`. Session resumption is off: every
// connection is verified against the material current when it arrives.
absl::StatusOr<std::shared_ptr<ssl::context>> MakeContext(const TlsMaterial& material) {
  std::shared_ptr<ssl::context> context;
  try {  // start-up or reload, not the request path
    context = std::make_shared<ssl::context>(ssl::context::tls_server);
  } catch (const boost::system::system_error& e) {
    return absl::InternalError(absl::StrCat("SSL_CTX_new: ", e.what()));
  }
  SSL_CTX* native = context->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_session_cache_mode(native, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(native, 0);
  error_code ec;
  // The identity PEM holds the chain, then the key; each reader skips the
  // other's blocks.
  const asio::const_buffer identity = asio::buffer(material.identity_pem);
  if (context->use_certificate_chain(identity, ec); ec) {
    return absl::InternalError(absl::StrCat("loading the metrics certificate: ", ec.message()));
  }
  if (context->use_private_key(identity, ssl::context::pem, ec); ec) {
    return absl::InternalError(absl::StrCat("loading the metrics private key: ", ec.message()));
  }
  if (material.client_ca_pem.empty()) {
    context->set_verify_mode(ssl::verify_none, ec);
    return context;
  }
  if (context->add_certificate_authority(asio::buffer(material.client_ca_pem), ec); ec) {
    return absl::InternalError(absl::StrCat("loading the metrics client CA: ", ec.message()));
  }
  context->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert, ec);
  return context;
}

// One response, Connection: close.
std::string HttpResponse(int code, absl::string_view reason, absl::string_view content_type,
                         absl::string_view extra_headers, absl::string_view body) {
  return absl::StrCat("HTTP/1.1 ", code, " ", reason, "\r\nContent-Type: ", content_type,
                      "\r\nContent-Length: ", body.size(), "\r\n", extra_headers,
                      "Connection: close\r\n\r\n", body);
}

std::string ErrorResponse(int code, absl::string_view reason,
                          absl::string_view extra_headers = "") {
  return HttpResponse(code, reason, "text/plain; charset=utf-8", extra_headers,
                      absl::StrCat(reason, "\n"));
}

// The response to one request head (the bytes up to and including the
// blank line ending it). `render` gives the body of a scrape.
std::string Answer(absl::string_view head, const std::function<std::string()>& render) {
  absl::StatusOr<HttpRequestHead> request = ParseHttpRequestHead(head);
  if (!request.ok()) return ErrorResponse(400, "Bad Request");
  if (request->method != "GET") return ErrorResponse(405, "Method Not Allowed", "Allow: GET\r\n");
  if (request->path != "/metrics") return ErrorResponse(404, "Not Found");
  return HttpResponse(200, "OK", "text/plain; version=0.0.4; charset=utf-8", "", render());
}

// What a connection needs of the endpoint.
class ConnectionOwner {
 public:
  virtual ~ConnectionOwner() = default;
  // A connection ended: its slot is free.
  virtual void Released() = 0;
  // The body of a scrape.
  virtual std::string Render() = 0;
  // The deadline of each of a connection's two phases.
  virtual std::chrono::milliseconds timeout() const = 0;
};

// The endpoint's own figures under prometheus-cpp's names and units, so a
// scrape carries the same families as on its civetweb endpoint
// (docs/observability.md mentions them).
class ScrapeMetrics {
 public:
  ScrapeMetrics()
      : bytes_(prometheus::BuildCounter()
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

  // These families (as of before this scrape), then `render`'s text.
  std::string Render(const std::function<std::string()>& render) {
    const auto start = std::chrono::steady_clock::now();
    std::string body = prometheus::TextSerializer().Serialize(registry_.Collect());
    body += render();
    const auto took = std::chrono::steady_clock::now() - start;
    bytes_.Increment(static_cast<double>(body.size()));
    scrapes_.Increment();
    latency_us_.Observe(
        static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(took).count()));
    return body;
  }

 private:
  prometheus::Registry registry_;
  prometheus::Counter& bytes_;
  prometheus::Counter& scrapes_;
  prometheus::Summary& latency_us_;
};

}  // namespace

class TlsMetricsEndpoint::Impl final : public ConnectionOwner {
 public:
  Impl(const TlsMetricsOptions& options, std::function<std::string()> render)
      : options_(options),
        render_(std::move(render)),
        accept_strand_(asio::make_strand(io_)),
        acceptor_(accept_strand_),
        retry_timer_(accept_strand_),
        work_(asio::make_work_guard(io_)) {}

  absl::Status Init();
  void Stop();
  int port() const { return port_.load(); }
  absl::Status Reload();
  std::string summary() const {
    MutexLock lock(&mutex_);
    return summary_;
  }
  void Released() override;
  std::string Render() override { return scrape_metrics_.Render(render_); }
  std::chrono::milliseconds timeout() const override {
    return std::chrono::milliseconds(std::max(options_.request_timeout_ms, 1));
  }

 private:
  absl::Status Listen();
  void Accept();  // on accept_strand_
  void OnAccept(const error_code& ec, tcp::socket socket);
  std::shared_ptr<ssl::context> context() const {
    MutexLock lock(&mutex_);
    return context_;
  }

  const TlsMetricsOptions options_;
  const std::function<std::string()> render_;
  std::vector<Ipv4Block> allowed_;
  ScrapeMetrics scrape_metrics_;
  // Declared before the I/O objects and threads: destroyed after them. The
  // handlers still pending at Stop(), and the connections they own, go with
  // it (a connection's destructor does not call back into this).
  asio::io_context io_;
  Strand accept_strand_;
  tcp::acceptor acceptor_;          // used on accept_strand_ only
  asio::steady_timer retry_timer_;  // after a failed accept (EMFILE): no busy loop
  bool accept_pending_ = false;     // on accept_strand_ only
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::vector<std::thread> threads_;
  std::atomic<int> active_{0};
  std::atomic<int> port_{0};
  std::atomic<bool> stopped_{false};

  mutable Mutex mutex_;
  std::shared_ptr<ssl::context> context_ ABSL_GUARDED_BY(mutex_);
  std::string summary_ ABSL_GUARDED_BY(mutex_);
};

namespace {

// One accepted connection: handshake, one request, one response, close.
// Every handler runs on the socket's strand; the deadline timer closes the
// socket, which ends whatever operation is pending.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(ConnectionOwner* owner, tcp::socket socket, std::shared_ptr<ssl::context> context)
      : owner_(owner),
        context_(std::move(context)),
        stream_(std::move(socket), *context_),
        deadline_(stream_.get_executor()),
        head_(kMaxRequestHeaderBytes) {}

  void Start() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->Handshake(); });
  }

 private:
  void Handshake() {
    Arm();
    stream_.async_handshake(ssl::stream_base::server,
                            [self = shared_from_this()](const error_code& ec) {
                              if (ec) return self->Finish("handshake", ec);
                              self->Read();
                            });
  }

  void Read() {
    asio::async_read_until(
        stream_, head_, "\r\n\r\n",
        [self = shared_from_this()](const error_code& ec, size_t n) { self->OnRead(ec, n); });
  }

  void OnRead(const error_code& ec, size_t n) {
    if (ec == asio::error::not_found)
      return Respond(ErrorResponse(431, "Request Header Fields Too Large"));
    if (ec) return Finish("reading the request", ec);
    const absl::string_view head(static_cast<const char*>(head_.data().data()), n);
    Respond(Answer(head, [this] { return owner_->Render(); }));
  }

  void Respond(std::string response) {
    Arm();  // a fresh deadline for the response: a slow reader cannot hold the slot
    response_ = std::move(response);
    asio::async_write(stream_, asio::buffer(response_),
                      [self = shared_from_this()](const error_code& ec, size_t) {
                        if (ec) return self->Finish("writing the response", ec);
                        self->stream_.async_shutdown([self](const error_code&) { self->Finish(); });
                      });
  }

  // (Re)starts the deadline; when it passes, the socket closes.
  void Arm() {
    deadline_.expires_after(owner_->timeout());
    deadline_.async_wait([self = shared_from_this()](const error_code& ec) {
      if (ec == asio::error::operation_aborted) return;  // re-armed or finished
      // Re-armed after this wait had already completed: not yet due.
      if (self->deadline_.expiry() > asio::steady_timer::clock_type::now()) return;
      error_code ignored;
      self->stream_.lowest_layer().close(ignored);
    });
  }

  void Finish(const char* step = nullptr, const error_code& ec = {}) {
    if (finished_) return;
    finished_ = true;
    if (step != nullptr)
      spdlog::debug("metrics TLS connection closed while {}: {}", step, ec.message());
    deadline_.cancel();
    error_code ignored;
    stream_.lowest_layer().close(ignored);
    owner_->Released();
  }

  ConnectionOwner* const owner_;
  const std::shared_ptr<ssl::context> context_;  // the stream's; outlives it
  ssl::stream<tcp::socket> stream_;
  asio::steady_timer deadline_;
  asio::streambuf head_;  // bounded: a longer head fails with not_found
  std::string response_;
  bool finished_ = false;
};

}  // namespace

absl::Status TlsMetricsEndpoint::Impl::Init() {
  ASSIGN_OR_RETURN(allowed_, ParseBlocks(options_.allowed_networks));
  RETURN_IF_ERROR(Reload());
  RETURN_IF_ERROR(Listen());
  asio::post(accept_strand_, [this] { Accept(); });
  for (int i = 0; i < kThreads; ++i) threads_.emplace_back([this] { io_.run(); });
  return absl::OkStatus();
}

absl::Status TlsMetricsEndpoint::Impl::Listen() {
  const std::string host = options_.address == "localhost" ? "127.0.0.1" : options_.address;
  const std::string where = absl::StrCat(options_.address, ":", options_.port);
  error_code ec;
  const asio::ip::address_v4 address = asio::ip::make_address_v4(host, ec);
  if (ec)
    return absl::InvalidArgumentError(
        absl::StrCat("metrics.address ", where, ": not an IPv4 address"));
  const tcp::endpoint endpoint(address, static_cast<uint16_t>(options_.port));
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(kListenBacklog, ec);
  if (ec)
    return absl::UnavailableError(
        absl::StrCat("cannot serve metrics on ", where, ": ", ec.message()));
  port_.store(acceptor_.local_endpoint(ec).port());
  return absl::OkStatus();
}

void TlsMetricsEndpoint::Impl::Accept() {
  if (stopped_.load() || accept_pending_ || !acceptor_.is_open()) return;
  // Full: Released() calls again when a slot frees; until then new clients
  // wait in the kernel's accept queue.
  if (active_.load() >= std::max(options_.max_connections, 1)) return;
  accept_pending_ = true;
  acceptor_.async_accept(
      asio::make_strand(io_),
      asio::bind_executor(accept_strand_, [this](const error_code& ec, tcp::socket s) {
        OnAccept(ec, std::move(s));
      }));
}

void TlsMetricsEndpoint::Impl::OnAccept(const error_code& ec, tcp::socket socket) {
  accept_pending_ = false;
  if (ec == asio::error::operation_aborted || stopped_.load()) return;
  if (ec) {
    spdlog::warn("metrics endpoint: accept failed: {}", ec.message());
    retry_timer_.expires_after(kAcceptRetry);
    retry_timer_.async_wait([this](const error_code& e) {
      if (!e) Accept();
    });
    return;
  }
  error_code peer_ec;
  const tcp::endpoint peer = socket.remote_endpoint(peer_ec);
  if (peer_ec || !Allowed(allowed_, peer.address())) {
    // As civetweb's access control list: closed before it costs a handshake.
    error_code ignored;
    socket.close(ignored);
  } else {
    active_.fetch_add(1);
    std::make_shared<Connection>(this, std::move(socket), context())->Start();
  }
  Accept();
}

void TlsMetricsEndpoint::Impl::Released() {
  active_.fetch_sub(1);
  asio::post(accept_strand_, [this] { Accept(); });
}

absl::Status TlsMetricsEndpoint::Impl::Reload() {
  ASSIGN_OR_RETURN(TlsMaterial material, LoadTlsMaterial(options_.files, "metrics"));
  ASSIGN_OR_RETURN(std::shared_ptr<ssl::context> context, MakeContext(material));
  MutexLock lock(&mutex_);
  context_ = std::move(context);
  summary_ = std::move(material.summary);
  return absl::OkStatus();
}

void TlsMetricsEndpoint::Impl::Stop() {
  if (stopped_.exchange(true)) return;
  // Pending handlers (and the connections they own) are destroyed with
  // io_; nothing runs once the threads are joined.
  io_.stop();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  error_code ignored;
  acceptor_.close(ignored);
  port_.store(0);
}

TlsMetricsOptions TlsMetricsOptionsOf(const ServerSettings& settings) {
  TlsMetricsOptions options;
  options.address = settings.metrics_address;
  options.port = settings.metrics_port;
  options.max_connections = settings.metrics_max_connections;
  options.request_timeout_ms = settings.metrics_request_timeout_ms;
  options.allowed_networks = settings.metrics_allowed_networks;
  options.files = settings.metrics_tls;
  return options;
}

TlsMetricsEndpoint::TlsMetricsEndpoint(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TlsMetricsEndpoint::~TlsMetricsEndpoint() { Stop(); }

absl::StatusOr<std::unique_ptr<TlsMetricsEndpoint>> TlsMetricsEndpoint::Start(
    const TlsMetricsOptions& options, std::function<std::string()> render) {
  if (!options.files.enabled()) return absl::InvalidArgumentError("metrics.tls is not configured");
  auto impl = std::make_unique<Impl>(options, std::move(render));
  RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<TlsMetricsEndpoint>(new TlsMetricsEndpoint(std::move(impl)));
}

void TlsMetricsEndpoint::Stop() { impl_->Stop(); }
int TlsMetricsEndpoint::port() const { return impl_->port(); }
absl::Status TlsMetricsEndpoint::Reload() { return impl_->Reload(); }
std::string TlsMetricsEndpoint::summary() const { return impl_->summary(); }

}  // namespace vkserve
