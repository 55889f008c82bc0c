// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/grpc/authorization.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <fstream>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/happens_before.h"
#include "base/mutex.h"
#include "base/status_macros.h"
#include "server/grpc/grpc_service.h"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

using inference::GRPCInferenceService;

// The role each RPC needs. Read-only and inference calls are `inference`;
// calls that change what the server serves or does, or map client memory,
// are `admin`. An RPC missing here is denied (RequiredRole returns 0).
constexpr struct {
  std::string_view method;
  uint32_t role;
} kMethodRoles[] = {
    {"ServerLive", kRoleInference},
    {"ServerReady", kRoleInference},
    {"ModelReady", kRoleInference},
    {"ServerMetadata", kRoleInference},
    {"ModelMetadata", kRoleInference},
    {"ModelInfer", kRoleInference},
    {"ModelStreamInfer", kRoleInference},
    {"ModelConfig", kRoleInference},
    {"ModelStatistics", kRoleInference},
    {"RepositoryIndex", kRoleInference},
    {"RepositoryModelLoad", kRoleAdmin},
    {"RepositoryModelUnload", kRoleAdmin},
    {"SystemSharedMemoryStatus", kRoleAdmin},
    {"SystemSharedMemoryRegister", kRoleAdmin},
    {"SystemSharedMemoryUnregister", kRoleAdmin},
    {"TraceSetting", kRoleAdmin},
    {"LogSettings", kRoleAdmin},
};

constexpr size_t kMinTokenLength = 16;
constexpr size_t kMaxTokenFileBytes = 4096;
constexpr size_t kMaxShmNameLength = 255;  // NAME_MAX of /dev/shm

std::string Sha256(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return std::string(reinterpret_cast<char*>(digest), sizeof(digest));
}

std::string_view RoleNames(uint32_t roles) {
  switch (roles & (kRoleInference | kRoleAdmin)) {
    case kRoleInference:
      return "inference";
    case kRoleAdmin:
      return "admin";
    case kRoleInference | kRoleAdmin:
      return "inference and admin";
    default:
      return "no role";
  }
}

// A token file's token, hashed; the plaintext is wiped before returning.
absl::StatusOr<std::string> HashTokenFile(const AuthGrant& grant) {
  std::ifstream in(grant.token_file, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat("auth grant '", grant.name, "': cannot read token_file ", grant.token_file));
  }
  std::string text(kMaxTokenFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxTokenFileBytes) {
    OPENSSL_cleanse(text.data(), text.size());
    return absl::InvalidArgumentError(absl::StrCat("auth grant '", grant.name, "': token_file ",
                                                   grant.token_file, " is larger than 4 KiB"));
  }
  const absl::string_view token = absl::StripAsciiWhitespace(text);
  const bool short_token = token.size() < kMinTokenLength;
  const std::string digest = Sha256(std::string_view(token.data(), token.size()));
  OPENSSL_cleanse(text.data(), text.size());
  if (short_token) {
    return absl::InvalidArgumentError(absl::StrCat("auth grant '", grant.name, "': the token in ",
                                                   grant.token_file, " is shorter than ",
                                                   kMinTokenLength, " characters"));
  }
  return digest;
}

// "Bearer <token>" (scheme case-insensitive) → the token; "" when malformed.
std::string_view BearerToken(std::string_view header) {
  constexpr absl::string_view kScheme = "bearer ";
  const absl::string_view text(header.data(), header.size());
  if (text.size() <= kScheme.size() || !absl::StartsWithIgnoreCase(text, kScheme)) return {};
  const absl::string_view token = absl::StripAsciiWhitespace(text.substr(kScheme.size()));
  return std::string_view(token.data(), token.size());
}

}  // namespace

uint32_t RequiredRole(std::string_view method) {
  for (const auto& entry : kMethodRoles) {
    if (entry.method == method) return entry.role;
  }
  return 0;
}

absl::StatusOr<std::unique_ptr<Authorizer>> Authorizer::Create(const ServerSettings& settings) {
  auto authorizer = std::unique_ptr<Authorizer>(new Authorizer());
  for (const AuthGrant& g : settings.auth_grants) {
    Grant grant{g.name, g.token_sha256, g.client_identity, g.roles};
    if (!g.token_file.empty()) {
      ASSIGN_OR_RETURN(grant.token_sha256, HashTokenFile(g));
    }
    authorizer->grants_.push_back(std::move(grant));
  }
  authorizer->shared_memory_enabled_ = settings.allow_shared_memory;
  authorizer->shared_memory_prefix_ = settings.shared_memory_key_prefix;
  return authorizer;
}

uint32_t Authorizer::TokenRoles(const std::string& digest, std::string* name) const {
  uint32_t roles = 0;
  for (const Grant& g : grants_) {
    if (g.token_sha256.size() != digest.size()) continue;  // not a token grant
    // Every token grant is compared in full, whatever matched before.
    const uint32_t equal = CRYPTO_memcmp(g.token_sha256.data(), digest.data(), digest.size()) == 0;
    roles |= g.roles & (0u - equal);
    if (equal) *name = g.name;
  }
  return roles;
}

absl::Status Authorizer::Authorize(std::string_view method, const CallerCredentials& caller) const {
  if (grants_.empty()) return absl::OkStatus();
  uint32_t roles = 0;
  std::string name;
  if (caller.authorization.size() > 1) {
    return absl::UnauthenticatedError("more than one authorization header");
  }
  if (caller.authorization.size() == 1) {
    const std::string_view token = BearerToken(caller.authorization.front());
    if (token.empty()) {
      return absl::UnauthenticatedError("the authorization header must be 'Bearer <token>'");
    }
    roles = TokenRoles(Sha256(token), &name);
    if (roles == 0) return absl::UnauthenticatedError("invalid bearer token");
  }
  for (const Grant& g : grants_) {
    if (g.client_identity.empty()) continue;
    for (const std::string& identity : caller.identities) {
      if (identity == g.client_identity) {
        roles |= g.roles;
        if (name.empty()) name = g.name;
      }
    }
  }
  if (roles == 0) {
    return absl::UnauthenticatedError(
        "this server requires credentials: the header 'authorization: Bearer <token>' or a client "
        "certificate that an auth grant names");
  }
  const uint32_t needed = RequiredRole(method);
  if (needed == 0 || (roles & needed) == 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(std::string(method), " needs the ", std::string(RoleNames(needed)),
                     " role; grant '", name, "' has ", std::string(RoleNames(roles))));
  }
  return absl::OkStatus();
}

absl::Status Authorizer::CheckSharedMemoryKey(std::string_view key) const {
  if (!shared_memory_enabled_) return absl::OkStatus();
  // The key is not echoed (it may be sensitive); the allowed prefix is.
  const bool one_object = key.size() > 1 && key.size() <= kMaxShmNameLength &&
                          key.find('/', 1) == std::string_view::npos && key != "/." && key != "/..";
  if (!one_object || !key.starts_with(shared_memory_prefix_) || key == shared_memory_prefix_) {
    return absl::PermissionDeniedError(absl::StrCat(
        "shared-memory key not allowed: this server maps only objects whose names start with \"",
        shared_memory_prefix_, "\" (limits.shared_memory_key_prefix)"));
  }
  return absl::OkStatus();
}

CallerCredentials CredentialsOf(const grpc::ServerContextBase& context) {
  CallerCredentials caller;
  const auto& metadata = context.client_metadata();
  for (auto [it, end] = metadata.equal_range("authorization"); it != end; ++it) {
    caller.authorization.emplace_back(it->second.data(), it->second.size());
  }
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth != nullptr && auth->IsPeerAuthenticated()) {
    for (const char* property : {GRPC_X509_SAN_PROPERTY_NAME, GRPC_X509_CN_PROPERTY_NAME}) {
      for (const grpc::string_ref& value : auth->FindPropertyValues(property)) {
        caller.identities.emplace_back(value.data(), value.size());
      }
    }
  }
  return caller;
}

// ---------------------------------------------------------------------------
// The authorizing wrapper.

namespace {

// At most one line per second (plus a count of those left out): a client
// retrying with a bad token must not flood the log.
void LogDenial(std::string_view method, const std::string& peer, const absl::Status& status) {
  static Mutex mutex;
  static absl::Time last = absl::InfinitePast();
  static uint64_t left_out = 0;
  uint64_t skipped = 0;
  {
    MutexLock lock(&mutex);
    const absl::Time now = absl::Now();
    if (now - last < absl::Seconds(1)) {
      ++left_out;
      return;
    }
    last = now;
    skipped = left_out;
    left_out = 0;
  }
  spdlog::warn("denied {} from {}: {}{}", method, peer, std::string(status.message()),
               skipped > 0 ? absl::StrCat(" (", skipped, " earlier denials not logged)") : "");
}

class RejectedStream final : public grpc::ServerBidiReactor<inference::ModelInferRequest,
                                                            inference::ModelStreamInferResponse> {
 public:
  explicit RejectedStream(const grpc::Status& status) {
    VKSERVE_HAPPENS_BEFORE(this);
    Finish(status);
  }
  void OnDone() override {
    VKSERVE_HAPPENS_AFTER(this);
    delete this;
  }
};

}  // namespace

absl::Status AuthorizeCall(const Authorizer& authorizer, const grpc::ServerContextBase& context,
                           std::string_view method) {
  if (!authorizer.enabled()) return absl::OkStatus();
  absl::Status status = authorizer.Authorize(method, CredentialsOf(context));
  if (!status.ok()) LogDenial(method, context.peer(), status);
  return status;
}

namespace {

#define VKSERVE_AUTHORIZED_UNARY(Method)                                         \
  grpc::ServerUnaryReactor* Method(grpc::CallbackServerContext* c,               \
                                   const inference::Method##Request* req,        \
                                   inference::Method##Response* resp) override { \
    if (grpc::Status s = Check(*c, #Method); !s.ok()) return Reject(c, s);       \
    return inner_->Method(c, req, resp);                                         \
  }

class AuthorizingService final : public InferenceServiceBase {
 public:
  AuthorizingService(InferenceServiceBase* inner, const Authorizer* authorizer)
      : inner_(inner), authorizer_(authorizer) {}

  VKSERVE_AUTHORIZED_UNARY(ServerLive)
  VKSERVE_AUTHORIZED_UNARY(ServerReady)
  VKSERVE_AUTHORIZED_UNARY(ModelReady)
  VKSERVE_AUTHORIZED_UNARY(ServerMetadata)
  VKSERVE_AUTHORIZED_UNARY(ModelMetadata)
  VKSERVE_AUTHORIZED_UNARY(ModelConfig)
  VKSERVE_AUTHORIZED_UNARY(ModelStatistics)
  VKSERVE_AUTHORIZED_UNARY(RepositoryIndex)
  VKSERVE_AUTHORIZED_UNARY(RepositoryModelLoad)
  VKSERVE_AUTHORIZED_UNARY(RepositoryModelUnload)
  VKSERVE_AUTHORIZED_UNARY(SystemSharedMemoryStatus)
  VKSERVE_AUTHORIZED_UNARY(SystemSharedMemoryUnregister)
  VKSERVE_AUTHORIZED_UNARY(TraceSetting)
  VKSERVE_AUTHORIZED_UNARY(LogSettings)

  grpc::ServerUnaryReactor* SystemSharedMemoryRegister(
      grpc::CallbackServerContext* c, const inference::SystemSharedMemoryRegisterRequest* req,
      inference::SystemSharedMemoryRegisterResponse* resp) override {
    grpc::Status s = Check(*c, "SystemSharedMemoryRegister");
    if (s.ok()) s = ToGrpcStatus(authorizer_->CheckSharedMemoryKey(req->key()));
    if (!s.ok()) return Reject(c, s);
    return inner_->SystemSharedMemoryRegister(c, req, resp);
  }

  grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
  ModelStreamInfer(grpc::CallbackServerContext* c) override {
    if (grpc::Status s = Check(*c, "ModelStreamInfer"); !s.ok()) return new RejectedStream(s);
    return inner_->ModelStreamInfer(c);
  }

 private:
  grpc::Status Check(const grpc::CallbackServerContext& c, std::string_view method) const {
    return ToGrpcStatus(AuthorizeCall(*authorizer_, c, method));
  }

  static grpc::ServerUnaryReactor* Reject(grpc::CallbackServerContext* c,
                                          const grpc::Status& status) {
    grpc::ServerUnaryReactor* reactor = c->DefaultReactor();
    reactor->Finish(status);
    return reactor;
  }

  InferenceServiceBase* const inner_;
  const Authorizer* const authorizer_;
};

#undef VKSERVE_AUTHORIZED_UNARY

}  // namespace

std::unique_ptr<InferenceServiceBase> MakeAuthorizingService(InferenceServiceBase* inner,
                                                             const Authorizer* authorizer) {
  return std::make_unique<AuthorizingService>(inner, authorizer);
}

}  // namespace vkserve
