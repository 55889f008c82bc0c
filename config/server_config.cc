// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "config/server_config.h"

#include <arpa/inet.h>

#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "config/config_source.h"
#include "config/default_server_config.h"  // generated: the embedded example
#include "config/model_repository.h"
#include "proto/server_config.pb.h"

namespace vkserve {
namespace {

namespace fs = std::filesystem;
using config::ServerConfig;

std::string Resolve(const std::string& base_dir, const std::string& path) {
  fs::path p(path);
  if (p.is_relative()) p = fs::path(base_dir) / p;
  return p.lexically_normal().string();
}

bool IsAddress(const std::string& address) {
  if (address == "localhost") return true;
  unsigned char buffer[16];
  if (inet_pton(AF_INET, address.c_str(), buffer) == 1) return true;
  std::string v6 = address;
  if (v6.size() > 2 && v6.front() == '[' && v6.back() == ']') v6 = v6.substr(1, v6.size() - 2);
  return inet_pton(AF_INET6, v6.c_str(), buffer) == 1;
}

std::string ListenAddress(const std::string& address, int port) {
  bool v6 = address.find(':') != std::string::npos && address.front() != '[';
  return v6 ? absl::StrCat("[", address, "]:", port) : absl::StrCat(address, ":", port);
}

bool IsHex(std::string_view text) {
  for (char c : text) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// "/" then letters, digits, '_', '-', '.' (not first): a prefix of POSIX shm
// names that stay in /dev/shm.
bool IsShmPrefix(std::string_view prefix) {
  if (prefix.empty() || prefix.front() != '/' || prefix.starts_with("/.")) return false;
  for (char c : prefix.substr(1)) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

// "a.b.c.d" or "a.b.c.d/n" (n in 0..32), as "a.b.c.d/n"; nullopt otherwise.
// "ADDRESS" or "ADDRESS/BITS", IPv4 or IPv6, as "ADDRESS/BITS"; nullopt when
// malformed.
std::optional<std::string> IpNetwork(const std::string& text) {
  const size_t slash = text.find('/');
  const std::string address = text.substr(0, slash);
  in_addr v4{};
  in6_addr v6{};
  int max_bits = 0;
  if (inet_pton(AF_INET, address.c_str(), &v4) == 1) {
    max_bits = 32;
  } else if (inet_pton(AF_INET6, address.c_str(), &v6) == 1) {
    max_bits = 128;
  } else {
    return std::nullopt;
  }
  int bits = max_bits;
  if (slash != std::string::npos) {
    const std::string length = text.substr(slash + 1);
    if (length.empty() || length.size() > 3 ||
        length.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
    bits = std::stoi(length);
    if (bits > max_bits) return std::nullopt;
  }
  return absl::StrCat(address, "/", bits);
}

// Validates and copies one section at a time; `path` names the field.
class Builder {
 public:
  Builder(const ConfigSource& source, const std::string& base_dir)
      : source_(source), base_dir_(base_dir) {}

  absl::Status Address(const FieldPath& path, bool has, const std::string& value,
                       std::string* out) {
    if (!has) return absl::OkStatus();
    if (!IsAddress(value)) {
      return source_.Error(
          path, absl::StrCat("\"", value, "\" is not an IPv4 or IPv6 address or \"localhost\""));
    }
    *out = value;
    return absl::OkStatus();
  }

  absl::Status Port(const FieldPath& path, bool has, int64_t value, int* out) {
    if (!has) return absl::OkStatus();
    if (value < 0 || value > 65535) {
      return source_.Error(path, absl::StrCat("port ", value, " is out of range 0..65535"));
    }
    *out = static_cast<int>(value);
    return absl::OkStatus();
  }

  absl::Status Range(const FieldPath& path, bool has, int64_t value, int64_t min, int64_t max,
                     int64_t* out) {
    if (!has) return absl::OkStatus();
    if (value < min || value > max) {
      return source_.Error(path,
                           absl::StrCat("must be between ", min, " and ", max, ", got ", value));
    }
    *out = value;
    return absl::OkStatus();
  }

  // A path to an existing regular file, resolved against the config's
  // directory; "" when not set.
  absl::Status File(const FieldPath& path, bool has, const std::string& value, std::string* out) {
    if (!has) return absl::OkStatus();
    if (value.empty()) return source_.Error(path, "must not be empty");
    *out = Resolve(base_dir_, value);
    std::error_code ec;
    if (!fs::is_regular_file(*out, ec)) {
      return source_.Error(path, absl::StrCat(*out, " is not a file"));
    }
    return absl::OkStatus();
  }

  // grpc.tls or metrics.tls (`section`) into `out`.
  absl::Status Tls(const char* section, const config::TlsSettings& t, TlsFiles* out) {
    RETURN_IF_ERROR(File({{section}, {"tls"}, {"certificate"}}, t.has_certificate(),
                         t.certificate(), &out->certificate_path));
    RETURN_IF_ERROR(File({{section}, {"tls"}, {"private_key"}}, t.has_private_key(),
                         t.private_key(), &out->private_key_path));
    RETURN_IF_ERROR(File({{section}, {"tls"}, {"client_ca"}}, t.has_client_ca(), t.client_ca(),
                         &out->client_ca_path));
    if (out->certificate_path.empty() != out->private_key_path.empty()) {
      return source_.Error(
          {{section}, {"tls"}, {t.has_certificate() ? "private_key" : "certificate"}},
          "certificate and private_key must be set together");
    }
    if (!out->client_ca_path.empty() && out->certificate_path.empty()) {
      return source_.Error({{section}, {"tls"}, {"client_ca"}},
                           "needs certificate and private_key");
    }
    return absl::OkStatus();
  }

  absl::Status Grant(const config::AuthSettings::Grant& g, int i, const ServerSettings& s,
                     AuthGrant* out) {
    const auto path = [i](const char* field) { return FieldPath{{"auth"}, {"grant", i}, {field}}; };
    out->name = g.has_name() ? g.name() : absl::StrCat("grant ", i);
    const int credentials = g.has_token_sha256() + g.has_token_file() + g.has_client_identity();
    if (credentials != 1) {
      return source_.Error(FieldPath{{"auth"}, {"grant", i}},
                           "set exactly one of token_sha256, token_file and client_identity");
    }
    if (g.has_token_sha256()) {
      if (g.token_sha256().size() != 64 || !IsHex(g.token_sha256())) {
        return source_.Error(path("token_sha256"), "must be 64 hex digits (a SHA-256 digest)");
      }
      out->token_sha256 = absl::HexStringToBytes(g.token_sha256());
    }
    RETURN_IF_ERROR(File(path("token_file"), g.has_token_file(), g.token_file(), &out->token_file));
    if (g.has_client_identity()) {
      if (g.client_identity().empty())
        return source_.Error(path("client_identity"), "must not be empty");
      if (s.tls_client_ca_path.empty() && s.http_tls.client_ca_path.empty()) {
        return source_.Error(path("client_identity"),
                             "needs client certificates: set grpc.tls.client_ca (or "
                             "http.tls.client_ca)");
      }
      out->client_identity = g.client_identity();
    }
    for (int r = 0; r < g.roles_size(); ++r) {
      switch (g.roles(r)) {
        case config::AuthSettings::INFERENCE:
          out->roles |= kRoleInference;
          break;
        case config::AuthSettings::ADMIN:
          out->roles |= kRoleAdmin;
          break;
        default:
          return source_.Error(FieldPath{{"auth"}, {"grant", i}, {"roles", r}},
                               "must be INFERENCE or ADMIN");
      }
    }
    if (out->roles == 0) return source_.Error(FieldPath{{"auth"}, {"grant", i}}, "grants no roles");
    return absl::OkStatus();
  }

  absl::Status Auth(const config::AuthSettings& a, ServerSettings* s) {
    std::set<std::string> names;
    for (int i = 0; i < a.grant_size(); ++i) {
      AuthGrant grant;
      RETURN_IF_ERROR(Grant(a.grant(i), i, *s, &grant));
      if (!names.insert(grant.name).second) {
        return source_.Error(FieldPath{{"auth"}, {"grant", i}, {"name"}},
                             absl::StrCat("\"", grant.name, "\" is used twice"));
      }
      s->auth_grants.push_back(std::move(grant));
    }
    return absl::OkStatus();
  }

  absl::Status MetricsLimits(const config::MetricsSettings& m, ServerSettings* s) {
    for (int i = 0; i < m.allowed_networks_size(); ++i) {
      std::optional<std::string> network = IpNetwork(m.allowed_networks(i));
      if (!network.has_value()) {
        return source_.Error({{"metrics"}, {"allowed_networks", i}},
                             absl::StrCat("\"", m.allowed_networks(i),
                                          "\" is not an IPv4 or IPv6 address or CIDR block "
                                          "(\"10.0.0.0/8\", \"fd00::/8\")"));
      }
      s->metrics_allowed_networks.push_back(*network);
    }
    int64_t value = s->metrics_max_connections;
    RETURN_IF_ERROR(Range({{"metrics"}, {"max_connections"}}, m.has_max_connections(),
                          m.max_connections(), 1, 256, &value));
    s->metrics_max_connections = static_cast<int>(value);
    value = s->metrics_request_timeout_ms;
    RETURN_IF_ERROR(Range({{"metrics"}, {"request_timeout_ms"}}, m.has_request_timeout_ms(),
                          m.request_timeout_ms(), 100, 60000, &value));
    s->metrics_request_timeout_ms = static_cast<int>(value);
    return absl::OkStatus();
  }

  absl::Status Http(const config::HttpSettings& h, ServerSettings* s) {
    RETURN_IF_ERROR(
        Address({{"http"}, {"address"}}, h.has_address(), h.address(), &s->http_address));
    RETURN_IF_ERROR(Port({{"http"}, {"port"}}, h.has_port(), h.port(), &s->http_port));
    RETURN_IF_ERROR(Tls("http", h.tls(), &s->http_tls));
    int64_t value = s->http_max_connections;
    RETURN_IF_ERROR(Range({{"http"}, {"max_connections"}}, h.has_max_connections(),
                          h.max_connections(), 1, 4096, &value));
    s->http_max_connections = static_cast<int>(value);
    value = s->http_request_timeout_ms;
    RETURN_IF_ERROR(Range({{"http"}, {"request_timeout_ms"}}, h.has_request_timeout_ms(),
                          h.request_timeout_ms(), 100, 600000, &value));
    s->http_request_timeout_ms = static_cast<int>(value);
    if (s->http_port > 0 && s->http_port == s->grpc_port) {
      return source_.Error({{"http"}, {"port"}},
                           absl::StrCat("port ", s->http_port, " is also grpc.port"));
    }
    return absl::OkStatus();
  }

  absl::Status Build(const ServerConfig& c, ServerSettings* s) {
    RETURN_IF_ERROR(Endpoints(c, s));
    RETURN_IF_ERROR(Repository(c, s));
    Gpu(c, s);
    RETURN_IF_ERROR(Limits(c, s));
    Logging(c, s);
    RETURN_IF_ERROR(Traces(c, s));
    int64_t exit_timeout = 30;
    RETURN_IF_ERROR(Range({{"exit_timeout_seconds"}}, c.has_exit_timeout_seconds(),
                          c.exit_timeout_seconds(), 0, 86400, &exit_timeout));
    s->exit_timeout = absl::Seconds(exit_timeout);
    return absl::OkStatus();
  }

  // The gRPC and metrics endpoints, TLS and authorization.
  absl::Status Endpoints(const ServerConfig& c, ServerSettings* s) {
    const auto& g = c.grpc();
    RETURN_IF_ERROR(
        Address({{"grpc"}, {"address"}}, g.has_address(), g.address(), &s->grpc_address));
    RETURN_IF_ERROR(Port({{"grpc"}, {"port"}}, g.has_port(), g.port(), &s->grpc_port));
    int64_t infer_threads = 0;
    RETURN_IF_ERROR(Range({{"grpc"}, {"infer_threads"}}, g.has_infer_threads(), g.infer_threads(),
                          0, 64, &infer_threads));
    s->grpc_infer_threads = static_cast<int>(infer_threads);
    TlsFiles grpc_tls;
    RETURN_IF_ERROR(Tls("grpc", g.tls(), &grpc_tls));
    s->tls_certificate_path = grpc_tls.certificate_path;
    s->tls_private_key_path = grpc_tls.private_key_path;
    s->tls_client_ca_path = grpc_tls.client_ca_path;
    RETURN_IF_ERROR(Http(c.http(), s));
    RETURN_IF_ERROR(Auth(c.auth(), s));
    const auto& m = c.metrics();
    if (m.has_enabled()) s->metrics_enabled = m.enabled();
    RETURN_IF_ERROR(
        Address({{"metrics"}, {"address"}}, m.has_address(), m.address(), &s->metrics_address));
    RETURN_IF_ERROR(MetricsLimits(m, s));
    RETURN_IF_ERROR(Tls("metrics", m.tls(), &s->metrics_tls));
    RETURN_IF_ERROR(Port({{"metrics"}, {"port"}}, m.has_port(), m.port(), &s->metrics_port));
    if (s->metrics_enabled && s->metrics_port != 0 && s->metrics_port == s->grpc_port) {
      return source_.Error({{"metrics"}, {"port"}},
                           absl::StrCat("port ", s->metrics_port, " is also grpc.port"));
    }
    if (s->metrics_enabled && s->metrics_port != 0 && s->metrics_port == s->http_port) {
      return source_.Error({{"metrics"}, {"port"}},
                           absl::StrCat("port ", s->metrics_port, " is also http.port"));
    }
    return absl::OkStatus();
  }

  // The model repository and which models load at start.
  absl::Status Repository(const ServerConfig& c, ServerSettings* s) {
    const auto& r = c.repository();
    if (r.has_path()) {
      if (r.path().empty()) return source_.Error({{"repository"}, {"path"}}, "must not be empty");
      s->repository_path = Resolve(base_dir_, r.path());
    } else {
      s->repository_path = generated::kExampleRepositoryDir;
    }
    std::error_code ec;
    if (!fs::is_directory(s->repository_path, ec)) {
      return source_.Error(
          {{"repository"}, {"path"}},
          absl::StrCat(s->repository_path, " is not a directory",
                       r.has_path() ? "" : " (the default: the example repository)"));
    }
    s->model_control = r.model_control() == config::RepositorySettings::EXPLICIT
                           ? ModelControlMode::kExplicit
                           : ModelControlMode::kNone;
    if (r.startup_models_size() > 0 && s->model_control != ModelControlMode::kExplicit) {
      return source_.Error({{"repository"}, {"startup_models"}},
                           "only allowed with model_control: EXPLICIT (NONE loads every model)");
    }
    std::set<std::string> seen;
    for (int i = 0; i < r.startup_models_size(); ++i) {
      const std::string& name = r.startup_models(i);
      FieldPath path = {{"repository"}, {"startup_models", i}};
      absl::Status valid = CheckModelName(name);
      if (!valid.ok()) return source_.Error(path, std::string(valid.message()));
      if (!seen.insert(name).second) {
        return source_.Error(path, absl::StrCat("\"", name, "\" is listed twice"));
      }
      s->startup_models.push_back(name);
    }
    return absl::OkStatus();
  }

  // The GPU, its pipeline cache and its tensor-core extension.
  void Gpu(const ServerConfig& c, ServerSettings* s) {
    const auto& gpu = c.gpu();
    if (gpu.has_device()) s->device = gpu.device();
    if (gpu.has_pipeline_cache_path()) {
      s->pipeline_cache_path =
          gpu.pipeline_cache_path().empty() ? "" : Resolve(base_dir_, gpu.pipeline_cache_path());
    }
    switch (gpu.matrix_extension()) {
      case config::GpuSettings::NV:
        s->matrix_extension = MatrixExtension::kNv;
        break;
      case config::GpuSettings::KHR:
        s->matrix_extension = MatrixExtension::kKhr;
        break;
      default:
        s->matrix_extension = MatrixExtension::kAuto;
        break;
    }
  }

  // Message, resident-output, cache and shared-memory limits.
  absl::Status Limits(const ServerConfig& c, ServerSettings* s) {
    const auto& l = c.limits();
    RETURN_IF_ERROR(Range({{"limits"}, {"max_message_bytes"}}, l.has_max_message_bytes(),
                          l.max_message_bytes(), 1024, std::numeric_limits<int32_t>::max(),
                          &s->max_message_bytes));
    RETURN_IF_ERROR(Range({{"limits"}, {"resident_output_max_count"}},
                          l.has_resident_output_max_count(), l.resident_output_max_count(), 0, kMax,
                          &s->resident_output_max_count));
    RETURN_IF_ERROR(Range({{"limits"}, {"resident_output_max_bytes"}},
                          l.has_resident_output_max_bytes(), l.resident_output_max_bytes(), 0, kMax,
                          &s->resident_output_max_bytes));
    int64_t idle = 300;
    RETURN_IF_ERROR(Range({{"limits"}, {"resident_output_idle_seconds"}},
                          l.has_resident_output_idle_seconds(), l.resident_output_idle_seconds(), 1,
                          int64_t{1} << 40, &idle));
    s->resident_output_idle_expiry = absl::Seconds(idle);
    auto cache_bytes = [&](const char* field, bool has, int64_t value,
                           std::optional<int64_t>* out) -> absl::Status {
      if (!has) return absl::OkStatus();
      int64_t bytes = 0;
      RETURN_IF_ERROR(Range({{"limits"}, {field}}, true, value, 0, kMax, &bytes));
      *out = bytes;
      return absl::OkStatus();
    };
    RETURN_IF_ERROR(cache_bytes("cache_device_bytes", l.has_cache_device_bytes(),
                                l.cache_device_bytes(), &s->cache_device_bytes));
    RETURN_IF_ERROR(cache_bytes("cache_host_bytes", l.has_cache_host_bytes(), l.cache_host_bytes(),
                                &s->cache_host_bytes));
    RETURN_IF_ERROR(Range({{"limits"}, {"output_buffer_pool_bytes"}},
                          l.has_output_buffer_pool_bytes(), l.output_buffer_pool_bytes(), 0, kMax,
                          &s->output_buffer_pool_bytes));
    if (l.has_allow_shared_memory()) s->allow_shared_memory = l.allow_shared_memory();
    if (l.has_shared_memory_key_prefix()) {
      if (!IsShmPrefix(l.shared_memory_key_prefix())) {
        return source_.Error(
            {{"limits"}, {"shared_memory_key_prefix"}},
            "must be \"/\" followed by letters, digits, '_', '-' or '.' (not first)");
      }
      s->shared_memory_key_prefix = l.shared_memory_key_prefix();
    }
    return absl::OkStatus();
  }

  // The log's level and format.
  void Logging(const ServerConfig& c, ServerSettings* s) {
    switch (c.log().level()) {
      case config::LogSettings::TRACE:
        s->log_level = LogLevel::kTrace;
        break;
      case config::LogSettings::DEBUG:
        s->log_level = LogLevel::kDebug;
        break;
      case config::LogSettings::WARNING:
        s->log_level = LogLevel::kWarning;
        break;
      case config::LogSettings::ERROR:
        s->log_level = LogLevel::kError;
        break;
      case config::LogSettings::OFF:
        s->log_level = LogLevel::kOff;
        break;
      default:
        s->log_level = LogLevel::kInfo;
        break;
    }
    s->log_format =
        c.log().format() == config::LogSettings::JSON ? LogFormat::kJson : LogFormat::kText;
  }

  // Where request traces go, and how many.
  absl::Status Traces(const ServerConfig& c, ServerSettings* s) {
    const auto& t = c.trace();
    if (t.has_directory()) {
      if (t.directory().empty())
        return source_.Error({{"trace"}, {"directory"}}, "must not be empty");
      s->trace_directory = Resolve(base_dir_, t.directory());
    } else {
      const char* tmp = std::getenv("TMPDIR");
      s->trace_directory =
          (fs::path(tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp") / "vkserve-traces").string();
    }
    RETURN_IF_ERROR(
        Range({{"trace"}, {"every_n"}}, t.has_every_n(), t.every_n(), 0, kMax, &s->trace_every_n));
    RETURN_IF_ERROR(Range({{"trace"}, {"max_files"}}, t.has_max_files(), t.max_files(), 1, 1000000,
                          &s->trace_max_files));
    if (t.has_allow_request()) s->trace_allow_request = t.allow_request();
    return absl::OkStatus();
  }

 private:
  static constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

  const ConfigSource& source_;
  const std::string& base_dir_;
};

}  // namespace

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return "trace";
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
    case LogLevel::kOff:
      return "off";
  }
  return "info";
}

std::string_view LogFormatName(LogFormat format) {
  return format == LogFormat::kJson ? "json" : "text";
}

std::string ServerSettings::GrpcListenAddress() const {
  return ListenAddress(grpc_address, grpc_port);
}

std::string ServerSettings::MetricsListenAddress() const {
  return ListenAddress(metrics_address, metrics_port);
}

std::string ServerSettings::HttpListenAddress() const {
  return ListenAddress(http_address, http_port);
}

bool ServerSettings::GrpcIsLoopback() const {
  if (grpc_address == "localhost" || grpc_address == "::1" || grpc_address == "[::1]") return true;
  in_addr v4{};
  return inet_pton(AF_INET, grpc_address.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
}

absl::StatusOr<ServerSettings> ParseServerConfig(std::string_view text,
                                                 const std::string& source_name,
                                                 const std::string& base_dir) {
  ServerConfig proto;
  ASSIGN_OR_RETURN(std::shared_ptr<const ConfigSource> source,
                   ParseTextProto(text, source_name, &proto));
  ServerSettings settings;
  settings.source = source_name;
  RETURN_IF_ERROR(Builder(*source, base_dir).Build(proto, &settings));
  return settings;
}

absl::StatusOr<ServerSettings> LoadServerConfig(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadConfigFile(path));
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) return absl::InvalidArgumentError(absl::StrCat(path, ": ", ec.message()));
  return ParseServerConfig(text, path, absolute.parent_path().string());
}

std::string_view DefaultServerConfigText() { return generated::kDefaultServerConfigText; }
std::string_view DefaultServerConfigDir() { return generated::kDefaultServerConfigDir; }

absl::StatusOr<ServerSettings> DefaultServerConfig() {
  return ParseServerConfig(DefaultServerConfigText(), "<built-in default>",
                           std::string(DefaultServerConfigDir()));
}

}  // namespace vkserve
