// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ServerSettings: the validated server configuration, every field resolved to
// its value (defaults filled in, relative paths made absolute). It is read
// from a text-format vkserve.config.ServerConfig file (proto/server_config.proto)
// or, with no file, from the built-in default: config/examples/server.pbtxt
// compiled into the binary, which serves the example repository shipped in
// the source tree (config/examples/repository). config/README.md documents
// every field.
//
// Plain data; thread-compatible. The loaders are stateless and thread-safe.
#ifndef VKSERVE_CONFIG_SERVER_CONFIG_H_
#define VKSERVE_CONFIG_SERVER_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/matrix_extension.h"

namespace vkserve {

enum class LogLevel { kTrace, kDebug, kInfo, kWarning, kError, kOff };
enum class LogFormat { kText, kJson };
enum class ModelControlMode {
  kNone,      // all models loaded at start; load/unload RPCs refused
  kExplicit,  // startup_models (or all) at start; load/unload RPCs allowed
};

// Roles of auth grants, as a bit set (AuthGrant::roles).
enum AuthRole : uint32_t {
  kRoleInference = 1u << 0,  // inference, metadata, readiness, statistics
  kRoleAdmin = 1u << 1,      // repository control, shared memory, trace/log settings
};

// One auth grant: a caller (exactly one of the three credential fields is
// set) and the roles it has. Tokens are held only as SHA-256 digests.
struct AuthGrant {
  std::string name;             // for log lines; never a token
  std::string token_sha256;     // 32 raw bytes, or ""
  std::string token_file;       // absolute path; hashed when the server starts
  std::string client_identity;  // certificate SAN or subject CN, or ""
  uint32_t roles = 0;           // AuthRole bits, at least one
};

// The PEM files of one TLS endpoint (absolute paths; "" when not set).
struct TlsFiles {
  std::string certificate_path;
  std::string private_key_path;
  std::string client_ca_path;  // set: mutual TLS
  bool enabled() const { return !certificate_path.empty(); }
};

std::string_view LogLevelName(LogLevel level);     // "info", ...
std::string_view LogFormatName(LogFormat format);  // "text", "json"

struct ServerSettings {
  // gRPC (KServe v2 / Triton protocol and grpc.health.v1).
  std::string grpc_address = "127.0.0.1";
  int grpc_port = 8001;        // 0: the system picks a free port
  int grpc_infer_threads = 0;  // 0: InferQueues::DefaultCount()
  // TLS: on when the certificate and key are set (absolute paths); with a
  // client CA, mutual TLS.
  std::string tls_certificate_path;
  std::string tls_private_key_path;
  std::string tls_client_ca_path;
  bool tls_enabled() const { return !tls_certificate_path.empty(); }
  TlsFiles GrpcTls() const {
    return {tls_certificate_path, tls_private_key_path, tls_client_ca_path};
  }

  // KServe v2 over HTTP/REST (server/http/); off while http_port < 0.
  std::string http_address = "127.0.0.1";
  int http_port = -1;  // 0: the system picks a free port
  TlsFiles http_tls;
  int http_max_connections = 64;
  int http_request_timeout_ms = 30000;
  bool http_enabled() const { return http_port >= 0; }

  // Prometheus text exposition at http://<address>:<port>/metrics (https://
  // with metrics_tls).
  bool metrics_enabled = true;
  std::string metrics_address = "127.0.0.1";
  int metrics_port = 8002;
  int metrics_max_connections = 8;        // connections served at once
  int metrics_request_timeout_ms = 2000;  // per request (HTTPS: handshake included)
  // IPv4 CIDR blocks ("10.0.0.0/8") that may connect; empty: everyone.
  std::vector<std::string> metrics_allowed_networks;
  // metrics.tls: set, the endpoint serves HTTPS (server/http/metrics_endpoint.h).
  TlsFiles metrics_tls;

  // Model repository (absolute path).
  std::string repository_path;
  ModelControlMode model_control = ModelControlMode::kNone;
  std::vector<std::string> startup_models;  // kExplicit only; empty = all

  // GPU.
  std::string device;  // Vulkan device selector; "" = best device
  // nullopt: the runtime's default file (DefaultPipelineCachePath());
  // "": in memory only; else an absolute path.
  std::optional<std::string> pipeline_cache_path;
  // On every device the server opens; kNv or kKhr on a device without that
  // extension fails to open it (gpu::ChooseMatrixExtension).
  MatrixExtension matrix_extension = MatrixExtension::kAuto;

  // Limits.
  int64_t max_message_bytes = int64_t{64} << 20;
  int64_t resident_output_max_count = 1024;
  int64_t resident_output_max_bytes = int64_t{4} << 30;
  absl::Duration resident_output_idle_expiry = absl::Seconds(300);
  bool allow_shared_memory = false;
  // Keys (shm_open names) a client may register start with this.
  std::string shared_memory_key_prefix = "/vkserve_";
  // Per-GPU budget of the per-shape caches; nullopt: sized from the device
  // (runtime's CacheLimits::ForDevice); 0: unlimited.
  std::optional<int64_t> cache_device_bytes;
  std::optional<int64_t> cache_host_bytes;
  // Host bytes of sent responses' output buffers kept for reuse.
  int64_t output_buffer_pool_bytes = int64_t{512} << 20;

  // Authorization; empty: every caller may call every RPC.
  std::vector<AuthGrant> auth_grants;

  // Logging.
  LogLevel log_level = LogLevel::kInfo;
  LogFormat log_format = LogFormat::kText;

  // Chrome traces of single requests (docs/observability.md).
  std::string trace_directory;  // absolute
  int64_t trace_every_n = 0;    // 0: only requests that ask
  int64_t trace_max_files = 100;
  bool trace_allow_request = true;

  // Graceful shutdown: how long in-flight requests may take after SIGTERM.
  absl::Duration exit_timeout = absl::Seconds(30);

  // Where these settings came from: the file path or "<built-in default>".
  std::string source;

  // "127.0.0.1:8001", "[::1]:8001": what grpc::ServerBuilder listens on.
  std::string GrpcListenAddress() const;
  // Same for the metrics endpoint.
  std::string MetricsListenAddress() const;
  // Same for the HTTP front end.
  std::string HttpListenAddress() const;
  // Whether grpc_address is a loopback address (127.0.0.0/8, ::1, localhost).
  bool GrpcIsLoopback() const;
};

// Reads and validates a server config file. Relative paths in it are
// resolved against the file's directory; fields it leaves out get their
// defaults (the repository path included: the example repository). Errors
// are INVALID_ARGUMENT "<path>:<line>:<column>: <field>: <problem>" (NOT_FOUND
// when the file does not exist).
absl::StatusOr<ServerSettings> LoadServerConfig(const std::string& path);

// Parses and validates config text. `source_name` prefixes errors; relative
// paths are resolved against `base_dir` (must be absolute).
absl::StatusOr<ServerSettings> ParseServerConfig(std::string_view text,
                                                 const std::string& source_name,
                                                 const std::string& base_dir);

// The built-in configuration used when no file is given: the text of
// config/examples/server.pbtxt as of the build, its paths resolved against
// config/examples/ in the source tree the binary was built from. It serves
// config/examples/repository on 127.0.0.1:8001 (metrics on :8002).
absl::StatusOr<ServerSettings> DefaultServerConfig();

// The embedded text and the directory its relative paths are resolved
// against (for `vkserve config --print-default`-style tooling and tests).
std::string_view DefaultServerConfigText();
std::string_view DefaultServerConfigDir();

}  // namespace vkserve

#endif  // VKSERVE_CONFIG_SERVER_CONFIG_H_
