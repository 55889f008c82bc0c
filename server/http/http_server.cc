// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/http/http_server.h"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/mutex.h"
#include "boost/asio/bind_executor.hpp"
#include "boost/asio/dispatch.hpp"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/ssl.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "boost/beast/ssl.hpp"
#include "nlohmann/json.hpp"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using boost::system::error_code;

constexpr int kListenBacklog = 128;
constexpr auto kAcceptRetry = std::chrono::milliseconds(100);

// An allowed network, IPv4 ones as IPv4-mapped IPv6 (::ffff:a.b.c.d/96+n),
// so that a v4 client of a dual-stack socket matches them as well.
struct NetworkBlock {
  asio::ip::address_v6::bytes_type network{};
  int bits = 0;
};

bool InBlock(const asio::ip::address_v6::bytes_type& address, const NetworkBlock& block) {
  for (int i = 0; i < 16 && i * 8 < block.bits; ++i) {
    const int bits = std::min(8, block.bits - i * 8);
    const uint8_t mask = static_cast<uint8_t>(0xff00u >> bits);
    if ((address[i] & mask) != (block.network[i] & mask)) return false;
  }
  return true;
}

asio::ip::address_v6 AsV6(const asio::ip::address& address) {
  return address.is_v4() ? asio::ip::make_address_v6(asio::ip::v4_mapped, address.to_v4())
                         : address.to_v6();
}

absl::StatusOr<std::vector<NetworkBlock>> ParseBlocks(const std::string& name,
                                                      const std::vector<std::string>& networks) {
  std::vector<NetworkBlock> blocks;
  for (const std::string& text : networks) {
    const std::vector<std::string> parts = absl::StrSplit(text, '/');
    error_code ec;
    const asio::ip::address address = asio::ip::make_address(parts[0], ec);
    const int max_bits = !ec && address.is_v4() ? 32 : 128;
    int bits = max_bits;
    if (ec || parts.size() > 2 || (parts.size() == 2 && !absl::SimpleAtoi(parts[1], &bits)) ||
        bits < 0 || bits > max_bits) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ".allowed_networks: \"", text, "\" is not an IPv4 or IPv6 CIDR block"));
    }
    blocks.push_back({AsV6(address).to_bytes(), bits + (128 - max_bits)});
  }
  return blocks;
}

bool Allowed(const std::vector<NetworkBlock>& blocks, const asio::ip::address& peer) {
  if (blocks.empty()) return true;
  const asio::ip::address_v6::bytes_type bytes = AsV6(peer).to_bytes();
  return std::any_of(blocks.begin(), blocks.end(),
                     [&bytes](const NetworkBlock& b) { return InBlock(bytes, b); });
}

// An SSL context serving `material`. Session resumption is off: every
// connection is verified against the material current when it arrives.
absl::StatusOr<std::shared_ptr<ssl::context>> MakeContext(const std::string& name,
                                                          const HttpTlsMaterial& material) {
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
    return absl::InvalidArgumentError(
        absl::StrCat("loading the ", name, " certificate: ", ec.message()));
  }
  if (context->use_private_key(identity, ssl::context::pem, ec); ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("loading the ", name, " private key: ", ec.message()));
  }
  if (material.client_ca_pem.empty()) {
    context->set_verify_mode(ssl::verify_none, ec);
    return context;
  }
  if (context->add_certificate_authority(asio::buffer(material.client_ca_pem), ec); ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("loading the ", name, " client CA: ", ec.message()));
  }
  context->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert, ec);
  return context;
}

std::string AsnText(const ASN1_STRING* s) {
  return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                     static_cast<size_t>(ASN1_STRING_length(s)));
}

// The verified peer certificate's SANs (DNS, URI, e-mail, IP) and subject CN.
std::vector<std::string> PeerIdentities(SSL* ssl) {
  std::vector<std::string> out;
  if (SSL_get_verify_result(ssl) != X509_V_OK) return out;
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) return out;
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; names != nullptr && i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type == GEN_DNS || n->type == GEN_URI || n->type == GEN_EMAIL) {
      out.push_back(AsnText(n->d.ia5));
    } else if (n->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* ip = n->d.iPAddress;
      if (ip->length == 4) {
        asio::ip::address_v4::bytes_type b;
        std::copy_n(ip->data, 4, b.begin());
        out.push_back(asio::ip::address_v4(b).to_string());
      } else if (ip->length == 16) {
        asio::ip::address_v6::bytes_type b;
        std::copy_n(ip->data, 16, b.begin());
        out.push_back(asio::ip::address_v6(b).to_string());
      }
    }
  }
  GENERAL_NAMES_free(names);
  X509_NAME* subject = X509_get_subject_name(cert);
  const int cn = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
  if (cn >= 0) {
    out.push_back(AsnText(X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, cn))));
  }
  X509_free(cert);
  return out;
}

}  // namespace

HttpResponse HttpErrorResponse(unsigned status, const std::string& message, bool json) {
  HttpResponse response{static_cast<http::status>(status), 11};
  if (json) {
    response.set(http::field::content_type, "application/json");
    response.body() = nlohmann::json{{"error", message}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    response.set(http::field::content_type, "text/plain; charset=utf-8");
    const auto reason = http::obsolete_reason(static_cast<http::status>(status));
    response.body() = std::string(reason.data(), reason.size()) + "\n";
  }
  return response;
}

// The connection slots, shared with the connections: a connection may end
// (and release its slot) while the server stops.
//
// It also holds the connections whose handler has not answered yet. A
// responder names its connection by number and posts the answer to the
// connection's strand under `mutex`, so that no answer is posted once Stop
// has begun (`stopped` is set under the same mutex); Stop then drops the
// held connections while the io_context still exists. An answer that comes
// later (after exit_timeout) finds nothing and is dropped, and no connection
// outlives the event loop its socket belongs to.
struct Slots {
  std::atomic<int> active{0};
  std::atomic<int> refusing{0};
  std::atomic<bool> stopped{false};
  Mutex mutex;
  std::function<void()> on_release ABSL_GUARDED_BY(mutex);  // re-arms accepting; cleared at Stop
  uint64_t next_answer ABSL_GUARDED_BY(mutex) = 0;
  std::unordered_map<uint64_t, std::shared_ptr<void>> awaiting ABSL_GUARDED_BY(mutex);

  void Release(bool refused) {
    (refused ? refusing : active).fetch_sub(1);
    MutexLock lock(&mutex);
    if (on_release) on_release();
  }
  // Holds `connection` until its answer comes; 0 once stopped.
  uint64_t Await(std::shared_ptr<void> connection) {
    MutexLock lock(&mutex);
    if (stopped.load()) return 0;
    const uint64_t id = ++next_answer;
    awaiting.emplace(id, std::move(connection));
    return id;
  }
  // Runs `post` with the connection awaiting answer `id`, unless stopped.
  template <class Post>
  void Answer(uint64_t id, Post&& post) {
    std::shared_ptr<void> connection;
    {
      MutexLock lock(&mutex);
      if (stopped.load()) return;
      auto it = awaiting.find(id);
      if (it == awaiting.end()) return;
      connection = std::move(it->second);
      awaiting.erase(it);
      post(connection);  // under the mutex: the io_context is still running
    }
  }
};

class HttpServer::Impl final {
 public:
  Impl(const HttpServerOptions& options, HttpHandler handler)
      : options_(options),
        handler_(std::move(handler)),
        accept_strand_(asio::make_strand(io_)),
        acceptor_(accept_strand_),
        retry_timer_(accept_strand_),
        work_(asio::make_work_guard(io_)) {}

  absl::Status Init(const HttpTlsMaterial* tls);
  void Stop();
  int port() const { return port_.load(); }
  absl::Status ReloadTls(const HttpTlsMaterial& tls);

  const HttpServerOptions& options() const { return options_; }
  std::chrono::milliseconds timeout() const {
    return std::chrono::milliseconds(std::max(options_.request_timeout_ms, 1));
  }
  const std::shared_ptr<Slots>& slots() const { return slots_; }
  void Handle(HttpRequest&& request, HttpResponder respond) {
    handler_(std::move(request), std::move(respond));
  }

 private:
  absl::Status Listen();
  void Accept();  // on accept_strand_
  void OnAccept(const error_code& ec, tcp::socket socket);
  std::shared_ptr<ssl::context> context() const {
    MutexLock lock(&mutex_);
    return context_;
  }

  const HttpServerOptions options_;
  const HttpHandler handler_;
  std::vector<NetworkBlock> allowed_;
  bool tls_ = false;
  asio::io_context io_;
  asio::strand<asio::io_context::executor_type> accept_strand_;
  tcp::acceptor acceptor_;
  asio::steady_timer retry_timer_;
  bool accept_pending_ = false;  // on accept_strand_ only
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::vector<std::thread> threads_;
  const std::shared_ptr<Slots> slots_ = std::make_shared<Slots>();
  std::atomic<int> port_{0};
  mutable Mutex mutex_;
  std::shared_ptr<ssl::context> context_ ABSL_GUARDED_BY(mutex_);
};

namespace {

// The read buffer's size while a request body arrives.
constexpr size_t kBodyReadBytes = size_t{64} << 10;

bool IsParseError(const error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_method).category();
}

// One accepted connection: (handshake), then requests one at a time until
// the client or an error ends it. Every handler runs on the socket's strand.
template <class Stream>
class Connection : public std::enable_shared_from_this<Connection<Stream>> {
 public:
  Connection(HttpServer::Impl* server, Stream stream, bool refuse,
             std::shared_ptr<ssl::context> context)
      : server_(server),
        slots_(server->slots()),
        context_(std::move(context)),
        stream_(std::move(stream)),
        refuse_(refuse) {}
  ~Connection() { slots_->Release(refuse_); }

  void Start() {
    asio::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
      if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
        self->ReadHeader();
      } else {
        self->Lowest().expires_after(self->server_->timeout());
        self->stream_.async_handshake(ssl::stream_base::server, [self](const error_code& ec) {
          if (ec) return self->Close("handshake", ec);
          self->identities_ = PeerIdentities(self->stream_.native_handle());
          self->ReadHeader();
        });
      }
    });
  }

 private:
  beast::tcp_stream& Lowest() { return beast::get_lowest_layer(stream_); }
  const HttpServerOptions& options() const { return server_->options(); }

  void ReadHeader() {
    if (slots_->stopped.load()) return Close();
    head_ = false;
    parser_.emplace();
    parser_->header_limit(options().max_header_bytes);
    parser_->body_limit(options().max_body_bytes);
    Lowest().expires_after(server_->timeout());
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](const error_code& ec, size_t) { self->OnHeader(ec); });
  }

  void OnHeader(const error_code& ec) {
    if (ec) return OnReadError(ec, /*started=*/buffer_.size() > 0);
    const auto& header = parser_->get();
    if (refuse_) {
      return Fail(503, absl::StrCat("too many connections (", options().max_connections,
                                    "); try again later"));
    }
    if (parser_->is_done()) return Dispatch();
    Lowest().expires_after(server_->timeout());
    if (beast::iequals(header[http::field::expect], "100-continue")) {
      auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
      http::async_write(stream_, *cont,
                        [self = this->shared_from_this(), cont](const error_code& e, size_t) {
                          if (e) return self->Close("writing 100 Continue", e);
                          self->ReadBody();
                        });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    // Beast reads at most the buffer's free capacity (and at least 512
    // bytes) per call: a 600 KB tensor took over a thousand reads, each a
    // completion on the strand, ten times the inference's own time. A
    // 64 KiB buffer while a body arrives reads it in few calls; Dispatch
    // gives it back, so idle keep-alive connections hold no more than a head.
    buffer_.reserve(kBodyReadBytes);
    http::async_read(stream_, buffer_, *parser_,
                     [self = this->shared_from_this()](const error_code& ec, size_t) {
                       if (ec) return self->OnReadError(ec, /*started=*/true);
                       self->Dispatch();
                     });
  }

  void OnReadError(const error_code& ec, bool started) {
    if (ec == http::error::header_limit) {
      return Fail(431, absl::StrCat("the request head is larger than ", options().max_header_bytes,
                                    " bytes"));
    }
    if (ec == http::error::body_limit) {
      return Fail(413, absl::StrCat("the request body is larger than ", options().max_body_bytes,
                                    " bytes (limits.max_message_bytes)"));
    }
    if (ec == http::error::partial_message) {
      return Fail(400, "the request ended before its body did (fewer bytes than Content-Length)");
    }
    if (IsParseError(ec) && ec != http::error::end_of_stream) {
      return Fail(400, absl::StrCat("malformed HTTP request: ", ec.message()));
    }
    if (!started || ec == http::error::end_of_stream) return Close();
    Close("reading a request", ec);
  }

  void Dispatch() {
    HttpRequest request{parser_->release(), identities_};
    if (buffer_.size() == 0) buffer_.shrink_to_fit();
    keep_alive_ = options().keep_alive && request.message.keep_alive();
    head_ = request.message.method() == http::verb::head;
    parser_.reset();
    Lowest().expires_never();
    const uint64_t id = slots_->Await(this->shared_from_this());
    if (id == 0) return Close();
    server_->Handle(std::move(request), [slots = slots_, id](HttpResponse response) {
      slots->Answer(id, [&response](const std::shared_ptr<void>& held) {
        auto self = std::static_pointer_cast<Connection>(held);
        asio::post(self->stream_.get_executor(),
                   [self, r = std::move(response)]() mutable { self->Write(std::move(r)); });
      });
    });
  }

  // Answers with an error and closes the connection.
  void Fail(unsigned status, const std::string& message) {
    keep_alive_ = false;
    HttpResponse response = HttpErrorResponse(status, message, options().json_errors);
    Write(std::move(response));
  }

  void Write(HttpResponse response) {
    response_ = std::move(response);
    response_.set(http::field::server, "vkserve");
    response_.keep_alive(keep_alive_);
    response_.prepare_payload();
    // A HEAD answer: the GET answer's headers (Content-Length included), no body.
    if (head_) response_.body().clear();
    Lowest().expires_after(server_->timeout());
    http::async_write(stream_, response_,
                      [self = this->shared_from_this()](const error_code& ec, size_t) {
                        if (ec) return self->Close("writing a response", ec);
                        self->response_ = {};
                        if (self->keep_alive_) return self->ReadHeader();
                        self->Shutdown();
                      });
  }

  void Shutdown() {
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      error_code ignored;
      Lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
      Close();
    } else {
      Lowest().expires_after(std::chrono::seconds(1));
      stream_.async_shutdown(
          [self = this->shared_from_this()](const error_code&) { self->Close(); });
    }
  }

  void Close(const char* step = nullptr, const error_code& ec = {}) {
    if (step != nullptr && ec != beast::error::timeout && ec != asio::error::eof &&
        ec != asio::error::connection_reset && ec != asio::error::operation_aborted) {
      spdlog::debug("{} connection closed while {}: {}", options().name, step, ec.message());
    }
    error_code ignored;
    Lowest().socket().close(ignored);
  }

  HttpServer::Impl* const server_;  // alive while its io_context runs our handlers
  const std::shared_ptr<Slots> slots_;
  const std::shared_ptr<ssl::context> context_;  // the stream's; outlives it
  Stream stream_;
  const bool refuse_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  HttpResponse response_;
  std::vector<std::string> identities_;
  bool keep_alive_ = true;
  bool head_ = false;  // the request being answered is a HEAD
};

}  // namespace

absl::Status HttpServer::Impl::Init(const HttpTlsMaterial* tls) {
  if (options_.max_connections < 1 || options_.threads < 1) {
    return absl::InvalidArgumentError(absl::StrCat(options_.name, ": bad connection limits"));
  }
  auto blocks = ParseBlocks(options_.name, options_.allowed_networks);
  if (!blocks.ok()) return blocks.status();
  allowed_ = *std::move(blocks);
  {
    MutexLock lock(&slots_->mutex);
    if (!options_.refuse_when_full) {
      slots_->on_release = [this] { asio::post(accept_strand_, [this] { Accept(); }); };
    }
  }
  if (tls != nullptr) {
    tls_ = true;
    if (absl::Status s = ReloadTls(*tls); !s.ok()) return s;
  }
  if (absl::Status s = Listen(); !s.ok()) return s;
  asio::post(accept_strand_, [this] { Accept(); });
  for (int i = 0; i < options_.threads; ++i) threads_.emplace_back([this] { io_.run(); });
  return absl::OkStatus();
}

absl::Status HttpServer::Impl::Listen() {
  const std::string host = options_.address == "localhost" ? "127.0.0.1" : options_.address;
  const std::string where = host.find(':') != std::string::npos
                                ? absl::StrCat("[", host, "]:", options_.port)
                                : absl::StrCat(host, ":", options_.port);
  error_code ec;
  const asio::ip::address address = asio::ip::make_address(host, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat(options_.name, ".address ", where, ": not an IP address"));
  }
  const tcp::endpoint endpoint(address, static_cast<uint16_t>(options_.port));
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(kListenBacklog, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve ", options_.name, " on ", where, ": ", ec.message()));
  }
  port_.store(acceptor_.local_endpoint(ec).port());
  return absl::OkStatus();
}

void HttpServer::Impl::Accept() {
  if (slots_->stopped.load() || accept_pending_ || !acceptor_.is_open()) return;
  // Full and not refusing: a slot's release calls again.
  if (!options_.refuse_when_full && slots_->active.load() >= options_.max_connections) return;
  accept_pending_ = true;
  acceptor_.async_accept(
      asio::make_strand(io_),
      asio::bind_executor(accept_strand_, [this](const error_code& ec, tcp::socket s) {
        OnAccept(ec, std::move(s));
      }));
}

void HttpServer::Impl::OnAccept(const error_code& ec, tcp::socket socket) {
  accept_pending_ = false;
  if (ec == asio::error::operation_aborted || slots_->stopped.load()) return;
  if (ec) {
    spdlog::warn("{}: accept failed: {}", options_.name, ec.message());
    retry_timer_.expires_after(kAcceptRetry);
    retry_timer_.async_wait([this](const error_code& e) {
      if (!e) Accept();
    });
    return;
  }
  error_code peer_ec;
  const tcp::endpoint peer = socket.remote_endpoint(peer_ec);
  bool refuse = false;
  if (peer_ec || !Allowed(allowed_, peer.address())) {
    error_code ignored;
    socket.close(ignored);
    return Accept();
  }
  if (slots_->active.load() >= options_.max_connections) {
    // Beyond the refusals too: closed at once.
    if (slots_->refusing.load() >= options_.max_connections) {
      error_code ignored;
      socket.close(ignored);
      return Accept();
    }
    refuse = true;
    slots_->refusing.fetch_add(1);
  } else {
    slots_->active.fetch_add(1);
  }
  socket.set_option(tcp::no_delay(true), peer_ec);
  if (tls_) {
    std::shared_ptr<ssl::context> ctx = context();
    using Tls = beast::ssl_stream<beast::tcp_stream>;
    std::make_shared<Connection<Tls>>(this, Tls(std::move(socket), *ctx), refuse, ctx)->Start();
  } else {
    std::make_shared<Connection<beast::tcp_stream>>(this, beast::tcp_stream(std::move(socket)),
                                                    refuse, nullptr)
        ->Start();
  }
  Accept();
}

absl::Status HttpServer::Impl::ReloadTls(const HttpTlsMaterial& tls) {
  if (!tls_) return absl::FailedPreconditionError(absl::StrCat(options_.name, " has no TLS"));
  auto context = MakeContext(options_.name, tls);
  if (!context.ok()) return context.status();
  MutexLock lock(&mutex_);
  context_ = *std::move(context);
  return absl::OkStatus();
}

void HttpServer::Impl::Stop() {
  std::unordered_map<uint64_t, std::shared_ptr<void>> awaiting;
  {
    MutexLock lock(&slots_->mutex);
    if (slots_->stopped.exchange(true)) return;
    slots_->on_release = nullptr;
    awaiting.swap(slots_->awaiting);
  }
  io_.stop();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  // Unanswered connections end here, while their io_context exists.
  awaiting.clear();
  error_code ignored;
  acceptor_.close(ignored);
  port_.store(0);
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                              const HttpTlsMaterial* tls,
                                                              HttpHandler handler) {
  auto impl = std::make_unique<Impl>(options, std::move(handler));
  if (absl::Status s = impl->Init(tls); !s.ok()) {
    impl->Stop();
    return s;
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

void HttpServer::Stop() { impl_->Stop(); }
int HttpServer::port() const { return impl_->port(); }
absl::Status HttpServer::ReloadTls(const HttpTlsMaterial& tls) { return impl_->ReloadTls(tls); }

}  // namespace vkserve
