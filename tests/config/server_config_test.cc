// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Server config: defaults, the built-in config, every field, and errors that
// carry the file, line and field.
#include "config/server_config.h"

#include <filesystem>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/config/temp_dir.h"

namespace vkserve {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using vkserve::testing::TempDir;

std::string ExampleRepository() {
  return (std::filesystem::path(std::string(DefaultServerConfigDir())) / "repository")
      .lexically_normal()
      .string();
}

// Parses `text` as <dir>/server.pbtxt and returns the error message.
std::string ErrorOf(const std::string& text) {
  TempDir dir;
  std::string path = dir.Write("server.pbtxt", text);
  absl::StatusOr<ServerSettings> settings = LoadServerConfig(path);
  EXPECT_FALSE(settings.ok()) << text;
  if (settings.ok()) return "";
  EXPECT_EQ(settings.status().code(), absl::StatusCode::kInvalidArgument);
  // Every error starts with the file name.
  EXPECT_THAT(std::string(settings.status().message()), StartsWith(path));
  return std::string(settings.status().message()).substr(path.size());
}

TEST(ServerConfigTest, BuiltInDefaultServesTheExampleRepository) {
  absl::StatusOr<ServerSettings> s = DefaultServerConfig();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->source, "<built-in default>");
  EXPECT_EQ(s->grpc_address, "127.0.0.1");
  EXPECT_EQ(s->grpc_port, 8001);
  EXPECT_TRUE(s->metrics_enabled);
  EXPECT_EQ(s->metrics_address, "127.0.0.1");
  EXPECT_EQ(s->metrics_port, 8002);
  EXPECT_EQ(s->repository_path, ExampleRepository());
  EXPECT_TRUE(std::filesystem::exists(s->repository_path + "/tinynet/config.pbtxt"));
  EXPECT_EQ(s->model_control, ModelControlMode::kNone);
  EXPECT_TRUE(s->startup_models.empty());
  EXPECT_EQ(s->device, "");
  EXPECT_FALSE(s->pipeline_cache_path.has_value());
  EXPECT_EQ(s->matrix_extension, MatrixExtension::kAuto);
  EXPECT_EQ(s->max_message_bytes, 64 << 20);
  EXPECT_EQ(s->resident_output_max_count, 1024);
  EXPECT_EQ(s->resident_output_max_bytes, int64_t{4} << 30);
  EXPECT_EQ(s->resident_output_idle_expiry, absl::Seconds(300));
  EXPECT_FALSE(s->cache_device_bytes.has_value());  // sized from the device
  EXPECT_FALSE(s->cache_host_bytes.has_value());
  EXPECT_EQ(s->output_buffer_pool_bytes, int64_t{512} << 20);
  EXPECT_FALSE(s->allow_shared_memory);
  EXPECT_EQ(s->log_level, LogLevel::kInfo);
  EXPECT_EQ(s->log_format, LogFormat::kText);
  EXPECT_EQ(s->exit_timeout, absl::Seconds(30));
  EXPECT_EQ(s->GrpcListenAddress(), "127.0.0.1:8001");
  EXPECT_EQ(s->MetricsListenAddress(), "127.0.0.1:8002");
  // Safe defaults: loopback, no TLS needed there, control RPCs refused,
  // shared memory off and confined to /vkserve_* when on.
  EXPECT_TRUE(s->GrpcIsLoopback());
  EXPECT_FALSE(s->tls_enabled());
  EXPECT_TRUE(s->auth_grants.empty());
  EXPECT_EQ(s->shared_memory_key_prefix, "/vkserve_");
  EXPECT_EQ(s->metrics_max_connections, 8);
  EXPECT_EQ(s->metrics_request_timeout_ms, 2000);
  EXPECT_TRUE(s->metrics_allowed_networks.empty());
}

TEST(ServerConfigTest, EmptyFileGetsEveryDefault) {
  TempDir dir;
  absl::StatusOr<ServerSettings> s = LoadServerConfig(dir.Write("server.pbtxt", "# nothing\n"));
  ASSERT_TRUE(s.ok()) << s.status();
  ServerSettings defaults;
  EXPECT_EQ(s->grpc_port, defaults.grpc_port);
  EXPECT_EQ(s->metrics_port, defaults.metrics_port);
  EXPECT_EQ(s->repository_path, ExampleRepository());
  EXPECT_EQ(s->max_message_bytes, defaults.max_message_bytes);
  EXPECT_FALSE(s->allow_shared_memory);
}

TEST(ServerConfigTest, EveryFieldAndRelativePaths) {
  TempDir dir;
  dir.MakeDir("models");
  std::string path = dir.Write("etc/server.pbtxt", R"pb(
    grpc { address: "0.0.0.0" port: 9001 infer_threads: 3 }
    metrics { enabled: false address: "::1" port: 9002 }
    repository {
      path: "../models"
      model_control: EXPLICIT
      startup_models: "a"
      startup_models: "b.v2"
    }
    gpu { device: "NVIDIA" pipeline_cache_path: "cache/pipelines.bin" matrix_extension: KHR }
    limits {
      max_message_bytes: 1048576
      resident_output_max_count: 0
      resident_output_max_bytes: 1000
      resident_output_idle_seconds: 5
      allow_shared_memory: true
      cache_device_bytes: 0
      cache_host_bytes: 268435456
      output_buffer_pool_bytes: 0
    }
    log { level: DEBUG format: JSON }
    exit_timeout_seconds: 0
  )pb");
  absl::StatusOr<ServerSettings> s = LoadServerConfig(path);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->source, path);
  EXPECT_EQ(s->GrpcListenAddress(), "0.0.0.0:9001");
  EXPECT_EQ(s->grpc_infer_threads, 3);
  EXPECT_FALSE(s->metrics_enabled);
  EXPECT_EQ(s->MetricsListenAddress(), "[::1]:9002");
  EXPECT_EQ(s->repository_path, dir.Path("models"));
  EXPECT_EQ(s->model_control, ModelControlMode::kExplicit);
  EXPECT_THAT(s->startup_models, ::testing::ElementsAre("a", "b.v2"));
  EXPECT_EQ(s->device, "NVIDIA");
  EXPECT_EQ(s->pipeline_cache_path, dir.Path("etc/cache/pipelines.bin"));
  EXPECT_EQ(s->matrix_extension, MatrixExtension::kKhr);
  EXPECT_EQ(s->max_message_bytes, 1048576);
  EXPECT_EQ(s->resident_output_max_count, 0);
  EXPECT_EQ(s->resident_output_max_bytes, 1000);
  EXPECT_EQ(s->resident_output_idle_expiry, absl::Seconds(5));
  EXPECT_EQ(s->cache_device_bytes, 0);  // unlimited
  EXPECT_EQ(s->cache_host_bytes, 268435456);
  EXPECT_EQ(s->output_buffer_pool_bytes, 0);
  EXPECT_TRUE(s->allow_shared_memory);
  EXPECT_EQ(s->log_level, LogLevel::kDebug);
  EXPECT_EQ(s->log_format, LogFormat::kJson);
  EXPECT_EQ(s->exit_timeout, absl::ZeroDuration());
  EXPECT_EQ(LogLevelName(s->log_level), "debug");
  EXPECT_EQ(LogFormatName(s->log_format), "json");
}

TEST(ServerConfigTest, EmptyPipelineCachePathMeansMemoryOnly) {
  TempDir dir;
  absl::StatusOr<ServerSettings> s =
      LoadServerConfig(dir.Write("s.pbtxt", "gpu { pipeline_cache_path: \"\" }"));
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_TRUE(s->pipeline_cache_path.has_value());
  EXPECT_EQ(*s->pipeline_cache_path, "");
}

TEST(ServerConfigTest, MatrixExtensionTakesEachValue) {
  const std::pair<const char*, MatrixExtension> cases[] = {
      {"AUTO", MatrixExtension::kAuto},
      {"NV", MatrixExtension::kNv},
      {"KHR", MatrixExtension::kKhr},
  };
  for (const auto& [text, value] : cases) {
    TempDir dir;
    absl::StatusOr<ServerSettings> s = LoadServerConfig(
        dir.Write("s.pbtxt", absl::StrCat("gpu { matrix_extension: ", text, " }")));
    ASSERT_TRUE(s.ok()) << text << ": " << s.status();
    EXPECT_EQ(s->matrix_extension, value) << text;
    // The CLI's name (`--matrix-extension auto|nv|khr`) for the same value.
    EXPECT_EQ(MatrixExtensionName(value), absl::AsciiStrToLower(text));
  }
}

TEST(ServerConfigTest, PortZeroPicksAFreePort) {
  TempDir dir;
  absl::StatusOr<ServerSettings> s =
      LoadServerConfig(dir.Write("s.pbtxt", "grpc { port: 0 } metrics { port: 0 }"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->grpc_port, 0);
  EXPECT_EQ(s->metrics_port, 0);
}

TEST(ServerConfigTest, UnknownFieldNamesLineAndField) {
  EXPECT_EQ(ErrorOf("grpc {\n  prot: 1\n}\n"),
            ":2:3: grpc.prot: Message type \"vkserve.config.GrpcSettings\" has no field named "
            "\"prot\".");
}

TEST(ServerConfigTest, WrongTypeNamesLineAndField) {
  EXPECT_THAT(ErrorOf("grpc {\n  port: \"eight thousand\"\n}\n"),
              StartsWith(":2:9: grpc.port: Expected integer"));
  EXPECT_THAT(ErrorOf("limits { allow_shared_memory: 3 }"),
              StartsWith(":1:31: limits.allow_shared_memory: "));
  EXPECT_EQ(ErrorOf("grpc { address: 5 }"), ":1:17: grpc.address: Expected string, got: 5");
  EXPECT_EQ(ErrorOf("grpc { port: 3000000000 }"),
            ":1:14: grpc.port: Integer out of range (3000000000)");
}

TEST(ServerConfigTest, UnknownEnumValue) {
  EXPECT_EQ(ErrorOf("log {\n  level: VERBOSE\n}"),
            ":2:10: log.level: Unknown enumeration value of \"VERBOSE\" for field \"level\".");
  // Proto3 would take any number; vkserve takes only defined values.
  EXPECT_EQ(ErrorOf("log {\n  format: JSON\n  level: 7\n}"),
            ":3:3: log.level: 7 is not a value of Level (INFO, DEBUG, TRACE, WARNING, ERROR, OFF)");
  EXPECT_THAT(ErrorOf("repository { model_control: 3 }"),
              StartsWith(":1:14: repository.model_control: 3 is not a value of ModelControl"));
  // The enum's names, upper case as every enum-valued setting.
  EXPECT_EQ(ErrorOf("gpu {\n  matrix_extension: khr\n}"),
            ":2:21: gpu.matrix_extension: Unknown enumeration value of \"khr\" for field "
            "\"matrix_extension\".");
  EXPECT_EQ(ErrorOf("gpu { matrix_extension: CUDA }"),
            ":1:25: gpu.matrix_extension: Unknown enumeration value of \"CUDA\" for field "
            "\"matrix_extension\".");
  EXPECT_EQ(ErrorOf("gpu { matrix_extension: 3 }"),
            ":1:7: gpu.matrix_extension: 3 is not a value of MatrixExtension (AUTO, NV, KHR)");
}

TEST(ServerConfigTest, SyntaxError) {
  EXPECT_EQ(ErrorOf("grpc {\n  port: 1\n"), ":3:1: grpc.port: Expected identifier, got: ");
  EXPECT_EQ(ErrorOf("grpc port: 1"), ":1:6: grpc: Expected \"{\", found \"port\".");
}

TEST(ServerConfigTest, RepeatedSingularField) {
  EXPECT_EQ(ErrorOf("grpc { port: 1 }\ngrpc { port: 2 }"),
            ":2:1: grpc: Non-repeated field \"grpc\" is specified multiple times.");
  EXPECT_EQ(ErrorOf("grpc { port: 1 port: 2 }"),
            ":1:16: grpc.port: Non-repeated field \"port\" is specified multiple times.");
}

TEST(ServerConfigTest, PortOutOfRange) {
  EXPECT_EQ(ErrorOf("grpc {\n  port: 70000\n}"),
            ":2:3: grpc.port: port 70000 is out of range 0..65535");
  EXPECT_EQ(ErrorOf("metrics { port: -1 }"),
            ":1:11: metrics.port: port -1 is out of range 0..65535");
}

TEST(ServerConfigTest, InferThreadsOutOfRange) {
  EXPECT_EQ(ErrorOf("grpc { infer_threads: 65 }"),
            ":1:8: grpc.infer_threads: must be between 0 and 64, got 65");
  EXPECT_EQ(ErrorOf("grpc { infer_threads: -1 }"),
            ":1:8: grpc.infer_threads: must be between 0 and 64, got -1");
}

TEST(ServerConfigTest, SamePortTwice) {
  EXPECT_EQ(ErrorOf("grpc { port: 9000 }\nmetrics { port: 9000 }"),
            ":2:11: metrics.port: port 9000 is also grpc.port");
  EXPECT_EQ(ErrorOf("metrics { port: 8001 }"), ":1:11: metrics.port: port 8001 is also grpc.port");
  // Disabled metrics do not listen.
  TempDir dir;
  EXPECT_TRUE(LoadServerConfig(dir.Write("s.pbtxt", "metrics { enabled: false port: 8001 }")).ok());
}

TEST(ServerConfigTest, BadAddress) {
  EXPECT_EQ(ErrorOf("grpc { address: \"example.com\" }"),
            ":1:8: grpc.address: \"example.com\" is not an IPv4 or IPv6 address or \"localhost\"");
  EXPECT_THAT(ErrorOf("metrics { address: \"\" }"), HasSubstr("metrics.address"));
}

TEST(ServerConfigTest, NegativeAndOutOfRangeLimits) {
  EXPECT_EQ(
      ErrorOf("limits {\n  resident_output_max_count: -1\n}"),
      ":2:3: limits.resident_output_max_count: must be between 0 and 9223372036854775807, got -1");
  EXPECT_THAT(ErrorOf("limits { max_message_bytes: 3000000000 }"),
              HasSubstr("limits.max_message_bytes: must be between 1024 and 2147483647"));
  EXPECT_THAT(ErrorOf("limits { resident_output_idle_seconds: 0 }"),
              HasSubstr("limits.resident_output_idle_seconds: must be between 1"));
  EXPECT_THAT(ErrorOf("exit_timeout_seconds: -5"),
              HasSubstr(":1:1: exit_timeout_seconds: must be"));
  EXPECT_THAT(ErrorOf("limits { cache_host_bytes: -1 }"),
              HasSubstr("limits.cache_host_bytes: must be between 0 and"));
  EXPECT_THAT(ErrorOf("limits { output_buffer_pool_bytes: -5 }"),
              HasSubstr("limits.output_buffer_pool_bytes: must be between 0 and"));
}

TEST(ServerConfigTest, RepositoryErrors) {
  EXPECT_THAT(ErrorOf("repository { path: \"does/not/exist\" }"),
              AllOf(StartsWith(":1:14: repository.path: "),
                    HasSubstr("does/not/exist is not a directory")));
  EXPECT_EQ(ErrorOf("repository { path: \"\" }"), ":1:14: repository.path: must not be empty");
  EXPECT_EQ(ErrorOf("repository { startup_models: \"a\" }"),
            ":1:14: repository.startup_models: only allowed with model_control: EXPLICIT (NONE "
            "loads every model)");
  EXPECT_THAT(
      ErrorOf("repository { model_control: EXPLICIT startup_models: \"a\" startup_models: "
              "\"bad name\" }"),
      AllOf(HasSubstr("repository.startup_models[1]"), HasSubstr("not a valid model name")));
  EXPECT_THAT(
      ErrorOf("repository { model_control: EXPLICIT startup_models: \"a\" startup_models: \"a\" }"),
      HasSubstr("repository.startup_models[1]: \"a\" is listed twice"));
}

// Parses `text` as <dir>/server.pbtxt (files it names may live in `dir`)
// and returns the error message without the file name.
std::string ErrorIn(const TempDir& dir, const std::string& text) {
  std::string path = dir.Write("server.pbtxt", text);
  absl::StatusOr<ServerSettings> settings = LoadServerConfig(path);
  EXPECT_FALSE(settings.ok()) << text;
  if (settings.ok()) return "";
  EXPECT_EQ(settings.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(settings.status().message()).substr(path.size());
}

TEST(ServerConfigTest, TlsAuthAndSharedMemoryPrefix) {
  TempDir dir;
  dir.Write("etc/tls/server.crt", "x");
  dir.Write("etc/tls/server.key", "x");
  dir.Write("etc/tls/clients.crt", "x");
  dir.Write("etc/tls/metrics.crt", "x");
  dir.Write("etc/app.token", "x");
  const std::string digest(64, 'a');
  // Built outside the raw strings: spaces inside a quoted value matter.
  const std::string ops_grant = absl::StrCat("grant { name: \"ops\" token_sha256: \"", digest,
                                             "\" roles: [ INFERENCE, ADMIN ] }\n");
  std::string path =
      dir.Write("etc/server.pbtxt",
                R"pb(
                      grpc {
                        address: "0.0.0.0"
                        tls {
                          certificate: "tls/server.crt"
                          private_key: "tls/server.key"
                          client_ca: "tls/clients.crt"
                        }
                      }
                      metrics {
                        max_connections: 16
                        request_timeout_ms: 500
                        allowed_networks: [ "10.0.0.0/8", "192.168.1.7", "fd00::/8", "::1" ]
                        tls { certificate: "tls/metrics.crt" private_key: "tls/server.key" }
                      }
                      limits { allow_shared_memory: true shared_memory_key_prefix: "/team-a." }
                )pb" +
                    std::string("auth {\n") + ops_grant + R"pb(
                                 grant { token_file: "app.token" roles: INFERENCE }
                                 grant { client_identity: "spiffe://example/ci" roles: ADMIN }
                               })pb");
  absl::StatusOr<ServerSettings> s = LoadServerConfig(path);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->tls_enabled());
  EXPECT_FALSE(s->GrpcIsLoopback());
  EXPECT_EQ(s->tls_certificate_path, dir.Path("etc/tls/server.crt"));
  EXPECT_EQ(s->tls_private_key_path, dir.Path("etc/tls/server.key"));
  EXPECT_EQ(s->tls_client_ca_path, dir.Path("etc/tls/clients.crt"));
  EXPECT_EQ(s->metrics_max_connections, 16);
  EXPECT_EQ(s->metrics_request_timeout_ms, 500);
  EXPECT_THAT(s->metrics_allowed_networks,
              ::testing::ElementsAre("10.0.0.0/8", "192.168.1.7/32", "fd00::/8", "::1/128"));
  EXPECT_TRUE(s->metrics_tls.enabled());
  EXPECT_EQ(s->metrics_tls.certificate_path, dir.Path("etc/tls/metrics.crt"));
  EXPECT_EQ(s->metrics_tls.private_key_path, dir.Path("etc/tls/server.key"));
  EXPECT_EQ(s->metrics_tls.client_ca_path, "");
  EXPECT_EQ(s->shared_memory_key_prefix, "/team-a.");
  ASSERT_EQ(s->auth_grants.size(), 3u);
  EXPECT_EQ(s->auth_grants[0].name, "ops");
  EXPECT_EQ(s->auth_grants[0].token_sha256, std::string(32, '\xaa'));
  EXPECT_EQ(s->auth_grants[0].roles, kRoleInference | kRoleAdmin);
  EXPECT_EQ(s->auth_grants[1].name, "grant 1");
  EXPECT_EQ(s->auth_grants[1].token_file, dir.Path("etc/app.token"));
  EXPECT_EQ(s->auth_grants[1].roles, kRoleInference);
  EXPECT_EQ(s->auth_grants[2].client_identity, "spiffe://example/ci");
  EXPECT_EQ(s->auth_grants[2].roles, kRoleAdmin);
}

TEST(ServerConfigTest, TlsAndAuthErrors) {
  TempDir dir;
  dir.Write("a.pem", "x");
  EXPECT_EQ(ErrorIn(dir, "grpc { tls { certificate: \"a.pem\" } }"),
            ":1:8: grpc.tls.private_key: certificate and private_key must be set together");
  EXPECT_THAT(
      ErrorIn(dir, "grpc { tls { certificate: \"a.pem\" private_key: \"absent.pem\" } }"),
      AllOf(StartsWith(":1:35: grpc.tls.private_key: "), HasSubstr("absent.pem is not a file")));
  EXPECT_EQ(ErrorIn(dir, "grpc { tls { client_ca: \"a.pem\" } }"),
            ":1:14: grpc.tls.client_ca: needs certificate and private_key");
  EXPECT_EQ(ErrorIn(dir, "metrics {\n  tls { private_key: \"a.pem\" } }"),
            ":2:3: metrics.tls.certificate: certificate and private_key must be set together");
  EXPECT_THAT(
      ErrorIn(dir,
              "metrics { tls { certificate: \"a.pem\" private_key: \"a.pem\" client_ca: \"\" } }"),
      StartsWith(":1:59: metrics.tls.client_ca: must not be empty"));
  EXPECT_EQ(ErrorIn(dir, "metrics { tls { client_ca: \"a.pem\" } }"),
            ":1:17: metrics.tls.client_ca: needs certificate and private_key");
  EXPECT_EQ(ErrorIn(dir, "auth { grant { token_sha256: \"abc\" roles: ADMIN } }"),
            ":1:16: auth.grant[0].token_sha256: must be 64 hex digits (a SHA-256 digest)");
  EXPECT_EQ(ErrorIn(dir, "auth { grant { token_sha256: \"" + std::string(63, 'a') +
                             "g\" roles: ADMIN } }"),
            ":1:16: auth.grant[0].token_sha256: must be 64 hex digits (a SHA-256 digest)");
  EXPECT_EQ(
      ErrorIn(dir, "auth { grant { token_file: \"a.pem\" client_identity: \"x\" roles: ADMIN } }"),
      ":1:8: auth.grant[0]: set exactly one of token_sha256, token_file and client_identity");
  EXPECT_EQ(ErrorIn(dir, "auth { grant { roles: ADMIN } }"),
            ":1:8: auth.grant[0]: set exactly one of token_sha256, token_file and client_identity");
  EXPECT_EQ(
      ErrorIn(dir, "auth { grant { client_identity: \"x\" roles: ADMIN } }"),
      ":1:16: auth.grant[0].client_identity: needs client certificates: set grpc.tls.client_ca "
      "(or http.tls.client_ca)");
  EXPECT_EQ(ErrorIn(dir, "auth { grant { token_file: \"a.pem\" } }"),
            ":1:8: auth.grant[0]: grants no roles");
  EXPECT_EQ(ErrorIn(dir, "auth { grant { token_file: \"a.pem\" roles: ROLE_UNSPECIFIED } }"),
            ":1:36: auth.grant[0].roles[0]: must be INFERENCE or ADMIN");
  EXPECT_EQ(ErrorIn(dir,
                    "auth { grant { name: \"a\" token_file: \"a.pem\" roles: ADMIN }\n"
                    "       grant { name: \"a\" token_file: \"a.pem\" roles: ADMIN } }"),
            ":2:16: auth.grant[1].name: \"a\" is used twice");
}

TEST(ServerConfigTest, SharedMemoryPrefixAndMetricsLimitErrors) {
  for (const char* prefix : {"vkserve_", "", "/a/b", "/a b", "/.."}) {
    SCOPED_TRACE(prefix);
    EXPECT_THAT(ErrorOf(std::string("limits { shared_memory_key_prefix: \"") + prefix + "\" }"),
                HasSubstr("limits.shared_memory_key_prefix: must be \"/\" followed by letters"));
  }
  for (const char* network :
       {"10.0.0.0/33", "10.0.0.0/", "10.0.0/8", "::1/129", "fd00::/", "10.0.0.0/8x", "a"}) {
    SCOPED_TRACE(network);
    EXPECT_THAT(ErrorOf(std::string("metrics { allowed_networks: \"") + network + "\" }"),
                HasSubstr("metrics.allowed_networks[0]: \""));
  }
  EXPECT_THAT(ErrorOf("metrics { max_connections: 0 }"),
              HasSubstr("metrics.max_connections: must be between 1 and 256, got 0"));
  EXPECT_THAT(ErrorOf("metrics { request_timeout_ms: 99 }"),
              HasSubstr("metrics.request_timeout_ms: must be between 100 and 60000, got 99"));
}

TEST(ServerConfigTest, LoopbackAddresses) {
  ServerSettings s;
  for (const char* loopback : {"127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"}) {
    s.grpc_address = loopback;
    EXPECT_TRUE(s.GrpcIsLoopback()) << loopback;
  }
  for (const char* exposed : {"0.0.0.0", "::", "10.0.0.1", "128.0.0.1"}) {
    s.grpc_address = exposed;
    EXPECT_FALSE(s.GrpcIsLoopback()) << exposed;
  }
}

TEST(ServerConfigTest, MissingFileIsNotFound) {
  TempDir dir;
  absl::StatusOr<ServerSettings> s = LoadServerConfig(dir.Path("missing.pbtxt"));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("missing.pbtxt"));
}

TEST(ServerConfigTest, ParseServerConfigFromText) {
  absl::StatusOr<ServerSettings> s = ParseServerConfig("grpc { address: \"localhost\" }", "<flags>",
                                                       std::string(DefaultServerConfigDir()));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->GrpcListenAddress(), "localhost:8001");
  absl::StatusOr<ServerSettings> bad =
      ParseServerConfig("grpc { port: 1 port: 2 }", "<flags>", "/");
  EXPECT_THAT(std::string(bad.status().message()), StartsWith("<flags>:1:"));
}

}  // namespace
}  // namespace vkserve
