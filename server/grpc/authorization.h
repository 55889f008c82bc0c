// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Authorization of inference.GRPCInferenceService calls.
//
// Authorizer decides, from the server config's auth grants, whether a
// caller may call an RPC: each RPC needs one role (kMethodRoles in the .cc:
// inference or admin); a caller is named by a bearer token (the
// `authorization: Bearer <token>` header) and/or the verified client
// certificate of a mutual-TLS connection (its SANs and subject CN), and gets
// the roles of every grant that names it. With no grants configured every
// call is allowed (the server listens on loopback by default). Otherwise a
// call without a valid credential is UNAUTHENTICATED and one whose roles lack
// the RPC's role is PERMISSION_DENIED. Tokens are kept only as SHA-256
// digests, compared in constant time, and never logged or echoed.
//
// MakeAuthorizingService wraps the inference service so that every call is
// checked before its handler runs; no handler knows about authorization.
// ModelInfer, served on the async API (infer_queues.h), is checked by its
// queue with AuthorizeCall, the same check.
// (gRPC 1.51's server interceptors cannot fail a call before the handler
// runs, and an AuthMetadataProcessor only runs on TLS connections; a
// delegating service works for plaintext loopback and TLS alike.) The
// wrapper also enforces limits.shared_memory_key_prefix on
// SystemSharedMemoryRegister. grpc.health.v1.Health is not wrapped:
// orchestrator probes carry no credentials.
//
// Thread-safe (immutable after Create).
#ifndef VKSERVE_SERVER_GRPC_AUTHORIZATION_H_
#define VKSERVE_SERVER_GRPC_AUTHORIZATION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "config/server_config.h"
#include "grpcpp/grpcpp.h"
#include "proto/grpc_service.grpc.pb.h"
#include "server/grpc/inference_service_base.h"

namespace vkserve {

// The AuthRole bits an RPC of inference.GRPCInferenceService needs, by its
// method name ("ModelInfer"); 0 for a name the table does not know (denied).
uint32_t RequiredRole(std::string_view method);

// Who is calling, as the transport tells it.
struct CallerCredentials {
  // Every value of the `authorization` request header.
  std::vector<std::string_view> authorization;
  // The verified client certificate's SANs and subject CN; empty without
  // mutual TLS.
  std::vector<std::string> identities;
};

class Authorizer {
 public:
  // Reads and hashes token files. INVALID_ARGUMENT naming the grant when one
  // cannot be read or holds a token shorter than 16 characters.
  static absl::StatusOr<std::unique_ptr<Authorizer>> Create(const ServerSettings& settings);

  // Whether any grant is configured (else every call is allowed).
  bool enabled() const { return !grants_.empty(); }

  // OK, UNAUTHENTICATED (no or an invalid credential) or PERMISSION_DENIED
  // (the caller lacks the role `method` needs). Messages never hold a token.
  absl::Status Authorize(std::string_view method, const CallerCredentials& caller) const;

  // SystemSharedMemoryRegister's key: PERMISSION_DENIED unless it starts
  // with the configured prefix and names one object in /dev/shm. OK when
  // shared memory is disabled (the handler refuses the call then).
  absl::Status CheckSharedMemoryKey(std::string_view key) const;

 private:
  struct Grant {
    std::string name;
    std::string token_sha256;     // 32 bytes or ""
    std::string client_identity;  // or ""
    uint32_t roles = 0;
  };
  Authorizer() = default;

  // The roles of the grants whose token digest equals `digest`, comparing
  // every token grant in constant time; `name` gets a matching grant's name.
  uint32_t TokenRoles(const std::string& digest, std::string* name) const;

  std::vector<Grant> grants_;
  bool shared_memory_enabled_ = false;
  std::string shared_memory_prefix_;
};

// The credentials of a call: its authorization header values and, when the
// connection's client certificate was verified, the certificate's names.
CallerCredentials CredentialsOf(const grpc::ServerContextBase& context);

// Whether the caller of `context` may call `method`: OK, or the
// UNAUTHENTICATED / PERMISSION_DENIED status to answer with (denials are
// logged, at most one line a second).
absl::Status AuthorizeCall(const Authorizer& authorizer, const grpc::ServerContextBase& context,
                           std::string_view method);

// `inner` with every callback-API call authorized by `authorizer` first
// (ModelInfer is not among them: see above). Both must outlive the
// returned service.
std::unique_ptr<InferenceServiceBase> MakeAuthorizingService(InferenceServiceBase* inner,
                                                             const Authorizer* authorizer);

}  // namespace vkserve

#endif  // VKSERVE_SERVER_GRPC_AUTHORIZATION_H_
