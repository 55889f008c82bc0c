// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Authorizer without a server: the method table against the service
// descriptor, token and identity grants, the status codes, shared-memory
// keys, token files; and TlsMaterial refusing files that are not PEM.
// (test_security.py checks the same end to end over TLS.)
#include "server/grpc/authorization.h"

#include <openssl/sha.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "server/tls/tls_credentials.h"

namespace vkserve {
namespace {

constexpr char kAppToken[] = "app-token-0123456789";
constexpr char kOpsToken[] = "ops-token-9876543210";

std::string Sha256(const std::string& text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return std::string(reinterpret_cast<char*>(digest), sizeof(digest));
}

class ScratchFile {
 public:
  explicit ScratchFile(const std::string& contents)
      : path_((std::filesystem::temp_directory_path() /
               ("vkserve_auth_test_" + std::to_string(::getpid()) + "_" + std::to_string(count_++)))
                  .string()) {
    std::ofstream(path_) << contents;
  }
  ~ScratchFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static inline int count_ = 0;
  std::string path_;
};

ServerSettings Settings() {
  ServerSettings s;
  s.allow_shared_memory = true;
  s.auth_grants.push_back({"app", Sha256(kAppToken), "", "", kRoleInference});
  s.auth_grants.push_back({"ops", Sha256(kOpsToken), "", "", kRoleInference | kRoleAdmin});
  s.auth_grants.push_back({"ci", "", "", "spiffe://test/ci", kRoleAdmin});
  return s;
}

CallerCredentials Token(std::string_view header) {
  CallerCredentials c;
  c.authorization.push_back(header);
  return c;
}

absl::StatusCode Code(const Authorizer& a, std::string_view method, const CallerCredentials& c) {
  return a.Authorize(method, c).code();
}

TEST(AuthorizationTest, EveryRpcOfTheServiceHasARole) {
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
          "inference.GRPCInferenceService");
  ASSERT_NE(service, nullptr);
  for (int i = 0; i < service->method_count(); ++i) {
    EXPECT_NE(RequiredRole(service->method(i)->name()), 0u) << service->method(i)->name();
  }
  EXPECT_EQ(RequiredRole("ModelInfer"), kRoleInference);
  EXPECT_EQ(RequiredRole("ModelStreamInfer"), kRoleInference);
  for (const char* admin : {"RepositoryModelLoad", "RepositoryModelUnload",
                            "SystemSharedMemoryRegister", "SystemSharedMemoryUnregister",
                            "SystemSharedMemoryStatus", "TraceSetting", "LogSettings"}) {
    EXPECT_EQ(RequiredRole(admin), kRoleAdmin) << admin;
  }
  EXPECT_EQ(RequiredRole("NoSuchRpc"), 0u);
}

TEST(AuthorizationTest, WithoutGrantsEverythingIsAllowed) {
  auto a = Authorizer::Create(ServerSettings{});
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE((*a)->enabled());
  EXPECT_TRUE((*a)->Authorize("LogSettings", {}).ok());
}

TEST(AuthorizationTest, TokensGetTheirRoles) {
  auto a = Authorizer::Create(Settings());
  ASSERT_TRUE(a.ok());
  const std::string app = std::string("Bearer ") + kAppToken;
  const std::string ops = std::string("bearer  ") + kOpsToken;  // scheme case, extra space
  EXPECT_EQ(Code(**a, "ModelInfer", Token(app)), absl::StatusCode::kOk);
  EXPECT_EQ(Code(**a, "RepositoryModelLoad", Token(app)), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(Code(**a, "LogSettings", Token(ops)), absl::StatusCode::kOk);
  EXPECT_EQ(Code(**a, "ModelInfer", Token(ops)), absl::StatusCode::kOk);
  EXPECT_EQ(Code(**a, "NoSuchRpc", Token(ops)), absl::StatusCode::kPermissionDenied);
  const absl::Status denied = (*a)->Authorize("TraceSetting", Token(app));
  EXPECT_TRUE(absl::StrContains(denied.message(), "admin")) << denied;
  EXPECT_FALSE(absl::StrContains(denied.message(), kAppToken)) << denied;
}

TEST(AuthorizationTest, MissingOrInvalidCredentialsAreUnauthenticated) {
  auto a = Authorizer::Create(Settings());
  ASSERT_TRUE(a.ok());
  const std::string wrong = "Bearer app-token-0123456788";
  for (const CallerCredentials& c :
       {CallerCredentials{}, Token(wrong), Token(kAppToken), Token("Bearer "), Token("Basic abc"),
        CallerCredentials{{"Bearer x", "Bearer y"}, {}}}) {
    const absl::Status s = (*a)->Authorize("ModelInfer", c);
    EXPECT_EQ(s.code(), absl::StatusCode::kUnauthenticated) << s;
    EXPECT_FALSE(absl::StrContains(s.message(), "app-token")) << s;
  }
  // A valid certificate does not excuse an invalid token.
  CallerCredentials both = Token(wrong);
  both.identities = {"spiffe://test/ci"};
  EXPECT_EQ(Code(**a, "LogSettings", both), absl::StatusCode::kUnauthenticated);
}

TEST(AuthorizationTest, ClientIdentitiesAddRoles) {
  auto a = Authorizer::Create(Settings());
  ASSERT_TRUE(a.ok());
  CallerCredentials ci;
  ci.identities = {"ci-runner", "spiffe://test/ci"};
  EXPECT_EQ(Code(**a, "LogSettings", ci), absl::StatusCode::kOk);
  EXPECT_EQ(Code(**a, "ModelInfer", ci), absl::StatusCode::kPermissionDenied);
  CallerCredentials stranger;
  stranger.identities = {"spiffe://test/other"};
  EXPECT_EQ(Code(**a, "ModelInfer", stranger), absl::StatusCode::kUnauthenticated);
  // Roles of a token and of a certificate add up.
  const std::string app = std::string("Bearer ") + kAppToken;  // outlives the view
  CallerCredentials app_and_ci = Token(app);
  app_and_ci.identities = ci.identities;
  EXPECT_EQ(Code(**a, "LogSettings", app_and_ci), absl::StatusCode::kOk);
  EXPECT_EQ(Code(**a, "ModelInfer", app_and_ci), absl::StatusCode::kOk);
}

TEST(AuthorizationTest, SharedMemoryKeysMustStartWithThePrefix) {
  auto a = Authorizer::Create(Settings());
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE((*a)->CheckSharedMemoryKey("/vkserve_input0").ok());
  for (const char* key :
       {"/etc", "/vkserve_", "vkserve_x", "/vkserve_x/y", "/vkserve_/../x", "", "/"}) {
    const absl::Status s = (*a)->CheckSharedMemoryKey(key);
    EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << key;
    EXPECT_TRUE(absl::StrContains(s.message(), "/vkserve_")) << s;
  }
  EXPECT_FALSE((*a)->CheckSharedMemoryKey("/vkserve_" + std::string(300, 'x')).ok());
  ServerSettings any = Settings();
  any.shared_memory_key_prefix = "/";
  auto open = Authorizer::Create(any);
  ASSERT_TRUE(open.ok());
  EXPECT_TRUE((*open)->CheckSharedMemoryKey("/anything").ok());
  EXPECT_FALSE((*open)->CheckSharedMemoryKey("/a/b").ok());
  // Disabled shared memory: the handler answers (FAILED_PRECONDITION).
  ServerSettings off = Settings();
  off.allow_shared_memory = false;
  auto disabled = Authorizer::Create(off);
  ASSERT_TRUE(disabled.ok());
  EXPECT_TRUE((*disabled)->CheckSharedMemoryKey("/etc").ok());
}

TEST(AuthorizationTest, TokenFilesAreHashed) {
  ScratchFile token("  file-token-abcdef0123\n");
  ScratchFile short_token("short\n");
  ServerSettings s;
  s.auth_grants.push_back({"file", "", token.path(), "", kRoleInference});
  auto a = Authorizer::Create(s);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(Code(**a, "ModelInfer", Token("Bearer file-token-abcdef0123")), absl::StatusCode::kOk);
  EXPECT_EQ(Code(**a, "ModelInfer", Token("Bearer file-token-abcdef012")),
            absl::StatusCode::kUnauthenticated);
  s.auth_grants[0].token_file = short_token.path();
  const auto refused = Authorizer::Create(s);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "shorter than 16")) << refused.status();
  EXPECT_FALSE(absl::StrContains(refused.status().message(), "short\n"));
  s.auth_grants[0].token_file = token.path() + ".absent";
  EXPECT_EQ(Authorizer::Create(s).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(TlsMaterialTest, FilesThatAreNotPemAreRefused) {
  ScratchFile garbage("not a certificate\n");
  ServerSettings s;
  s.tls_certificate_path = garbage.path();
  s.tls_private_key_path = garbage.path();
  const auto material = LoadTlsMaterial(s);
  EXPECT_EQ(material.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(material.status().message(), "no PEM certificate"))
      << material.status();
  s.tls_certificate_path = garbage.path() + ".absent";
  EXPECT_TRUE(absl::StrContains(LoadTlsMaterial(s).status().message(), "cannot be read"));
}

}  // namespace
}  // namespace vkserve
