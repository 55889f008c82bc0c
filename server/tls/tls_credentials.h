// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// TlsCredentials: the gRPC server's TLS key material (certificate chain,
// private key, optional client CA for mutual TLS), reloadable while the
// server runs (serve_command.cc calls Reload() on SIGHUP).
//
// Why this shape (gRPC 1.51, Debian 12): a running grpc::Server can take new
// key material only through a certificate provider. 1.51 offers two public
// ones: StaticDataCertificateProvider (fixed for the server's life) and
// FileWatcherCertificateProvider (re-reads paths every N seconds); custom
// providers need C-core internals that are not installed. Watching the
// configured files directly would serve whatever is on disk mid-rotation: a
// half-written file or a new certificate with the old key makes gRPC drop
// its identity and fail every handshake until the next good read. So the
// files are read and checked here (PEM parses, the key matches the leaf
// certificate, the leaf is not expired, the CA parses), and only checked
// material is handed to the file watcher, through memfds it reads as
// /proc/self/fd/N. Certificate and key share one memfd, and Reload() swaps it
// with dup3(), so gRPC always reads a matching pair. The watcher polls every
// second (an in-memory read), so a reload reaches new connections within
// about a second; a failed reload leaves the old material in use. Nothing,
// the private key included, is copied to disk.
//
// Thread-safe.
#ifndef VKSERVE_SERVER_TLS_TLS_CREDENTIALS_H_
#define VKSERVE_SERVER_TLS_TLS_CREDENTIALS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/mutex.h"
#include "config/server_config.h"
#include "grpcpp/security/server_credentials.h"

namespace vkserve {

// A checked set of key material, as PEM text.
struct TlsMaterial {
  std::string identity_pem;   // the certificate chain, then the private key
  std::string client_ca_pem;  // "" without mutual TLS
  std::string summary;        // subject, expiry and SHA-256 fingerprint of the leaf
};

// Reads and checks `files` (REQUIRES files.enabled()): the PEM parses, the
// key matches the leaf certificate, the leaf has not expired, the client CA
// (when set) parses. INVALID_ARGUMENT naming the field ("<section>.tls.
// private_key"), the file and the problem.
absl::StatusOr<TlsMaterial> LoadTlsMaterial(const TlsFiles& files, absl::string_view section);
// The same for grpc.tls (REQUIRES settings.tls_enabled()).
absl::StatusOr<TlsMaterial> LoadTlsMaterial(const ServerSettings& settings);

class TlsCredentials {
 public:
  // Loads the material and builds the credentials; the error of
  // LoadTlsMaterial, or INTERNAL when a memfd cannot be made.
  static absl::StatusOr<std::unique_ptr<TlsCredentials>> Create(const ServerSettings& settings);
  ~TlsCredentials();
  TlsCredentials(const TlsCredentials&) = delete;
  TlsCredentials& operator=(const TlsCredentials&) = delete;

  // What grpc::ServerBuilder listens with. Keeps this object's memfds in
  // use: this object must outlive the server.
  std::shared_ptr<grpc::ServerCredentials> server_credentials() const { return credentials_; }

  // Re-reads the files. OK: new connections get the new material within
  // about a second. Else the old material stays and the error says why.
  absl::Status Reload();

  // The leaf certificate now served (for log lines).
  std::string summary() const;

 private:
  explicit TlsCredentials(ServerSettings settings) : settings_(std::move(settings)) {}
  absl::Status Install(const TlsMaterial& material) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const ServerSettings settings_;
  mutable Mutex mutex_;
  int identity_fd_ ABSL_GUARDED_BY(mutex_) = -1;
  int client_ca_fd_ ABSL_GUARDED_BY(mutex_) = -1;
  std::string summary_ ABSL_GUARDED_BY(mutex_);
  std::shared_ptr<grpc::ServerCredentials> credentials_;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_TLS_TLS_CREDENTIALS_H_
