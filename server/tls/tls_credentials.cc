// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/tls/tls_credentials.h"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"

namespace vkserve {
namespace {

// Larger PEM files than this are not certificates: refuse rather than read.
constexpr std::streamsize kMaxPemBytes = 1 << 20;
// How often gRPC's file watcher re-reads the memfds (seconds; its minimum).
constexpr unsigned kRefreshSeconds = 1;

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

// An encrypted key must not make OpenSSL prompt on the terminal.
int NoPassword(char*, int, int, void*) { return -1; }

absl::StatusOr<std::string> ReadPemFile(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(what, " ", path, ": cannot be read"));
  std::string text(static_cast<size_t>(kMaxPemBytes) + 1, '\0');
  in.read(text.data(), kMaxPemBytes + 1);
  if (in.gcount() > kMaxPemBytes) {
    return absl::InvalidArgumentError(absl::StrCat(what, " ", path, ": larger than 1 MiB"));
  }
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

BioPtr MemoryBio(const std::string& text) {
  return BioPtr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

std::string BioText(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

absl::StatusOr<std::vector<X509Ptr>> ParseCertificates(const std::string& text,
                                                       const std::string& path, const char* what) {
  BioPtr bio = MemoryBio(text);
  std::vector<X509Ptr> certs;
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, NoPassword, nullptr))
    certs.emplace_back(x);
  ERR_clear_error();  // the loop ends on "no start line"
  if (certs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " ", path, ": no PEM certificate in it"));
  }
  return certs;
}

std::string Summary(X509* leaf) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  X509_NAME_print_ex(bio.get(), X509_get_subject_name(leaf), 0, XN_FLAG_RFC2253);
  BIO_puts(bio.get(), ", not after ");
  ASN1_TIME_print(bio.get(), X509_get0_notAfter(leaf));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  X509_digest(leaf, EVP_sha256(), digest, &length);
  return absl::StrCat(
      BioText(bio.get()), ", sha256 ",
      absl::BytesToHexString(absl::string_view(reinterpret_cast<char*>(digest), length)));
}

// The chain and the key, re-encoded: gRPC reads exactly what was checked.
absl::StatusOr<std::string> IdentityPem(const std::vector<X509Ptr>& chain, EVP_PKEY* key) {
  BioPtr out(BIO_new(BIO_s_mem()));
  for (const X509Ptr& cert : chain) {
    if (PEM_write_bio_X509(out.get(), cert.get()) != 1)
      return absl::InternalError("PEM encoding failed");
  }
  if (PEM_write_bio_PrivateKey(out.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return absl::InternalError("PEM encoding of the private key failed");
  }
  return BioText(out.get());
}

absl::StatusOr<TlsMaterial> LoadIdentity(const TlsFiles& files, absl::string_view section) {
  const std::string cert_field = absl::StrCat(section, ".tls.certificate");
  const std::string key_field = absl::StrCat(section, ".tls.private_key");
  const std::string& cert_path = files.certificate_path;
  const std::string& key_path = files.private_key_path;
  ASSIGN_OR_RETURN(std::string cert_text, ReadPemFile(cert_path, cert_field.c_str()));
  ASSIGN_OR_RETURN(std::vector<X509Ptr> chain,
                   ParseCertificates(cert_text, cert_path, cert_field.c_str()));
  ASSIGN_OR_RETURN(std::string key_text, ReadPemFile(key_path, key_field.c_str()));
  BioPtr key_bio = MemoryBio(key_text);
  PkeyPtr key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, NoPassword, nullptr));
  ERR_clear_error();
  if (key == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(key_field, " ", key_path, ": no unencrypted PEM private key in it"));
  }
  X509* leaf = chain.front().get();
  if (X509_check_private_key(leaf, key.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        absl::StrCat(key_field, " ", key_path, " does not match the certificate ", cert_path));
  }
  if (X509_cmp_current_time(X509_get0_notAfter(leaf)) < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(cert_field, " ", cert_path, ": expired (", Summary(leaf), ")"));
  }
  TlsMaterial material;
  ASSIGN_OR_RETURN(material.identity_pem, IdentityPem(chain, key.get()));
  material.summary = Summary(leaf);
  return material;
}

absl::StatusOr<int> MemFile(const std::string& contents) {
  const int fd = memfd_create("vkserve-tls", MFD_CLOEXEC);
  if (fd < 0) return absl::InternalError(absl::StrCat("memfd_create: ", std::strerror(errno)));
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      return absl::InternalError(absl::StrCat("writing a memfd: ", std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  return fd;
}

std::string FdPath(int fd) { return absl::StrCat("/proc/self/fd/", fd); }

// Points descriptor `*fd` at a new memfd holding `contents`, atomically for
// readers that open /proc/self/fd/<*fd>; the first call creates it.
absl::Status Replace(int* fd, const std::string& contents) {
  ASSIGN_OR_RETURN(const int fresh, MemFile(contents));
  if (*fd < 0) {
    *fd = fresh;
    return absl::OkStatus();
  }
  const int result = dup3(fresh, *fd, O_CLOEXEC);
  const int err = errno;
  close(fresh);
  if (result < 0) return absl::InternalError(absl::StrCat("dup3: ", std::strerror(err)));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TlsMaterial> LoadTlsMaterial(const TlsFiles& files, absl::string_view section) {
  ASSIGN_OR_RETURN(TlsMaterial material, LoadIdentity(files, section));
  if (files.client_ca_path.empty()) return material;
  const std::string ca_field = absl::StrCat(section, ".tls.client_ca");
  ASSIGN_OR_RETURN(std::string ca_text, ReadPemFile(files.client_ca_path, ca_field.c_str()));
  ASSIGN_OR_RETURN(std::vector<X509Ptr> cas,
                   ParseCertificates(ca_text, files.client_ca_path, ca_field.c_str()));
  BioPtr out(BIO_new(BIO_s_mem()));
  for (const X509Ptr& ca : cas) PEM_write_bio_X509(out.get(), ca.get());
  material.client_ca_pem = BioText(out.get());
  return material;
}

absl::StatusOr<TlsMaterial> LoadTlsMaterial(const ServerSettings& settings) {
  return LoadTlsMaterial(settings.GrpcTls(), "grpc");
}

absl::StatusOr<std::unique_ptr<TlsCredentials>> TlsCredentials::Create(
    const ServerSettings& settings) {
  ASSIGN_OR_RETURN(TlsMaterial material, LoadTlsMaterial(settings));
  auto tls = std::unique_ptr<TlsCredentials>(new TlsCredentials(settings));
  MutexLock lock(&tls->mutex_);
  RETURN_IF_ERROR(tls->Install(material));
  const bool mutual = !settings.tls_client_ca_path.empty();
  // The combined PEM is both the key file and the certificate file: gRPC's
  // PEM readers skip the blocks they do not want.
  const std::string identity = FdPath(tls->identity_fd_);
  auto provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      identity, identity, mutual ? FdPath(tls->client_ca_fd_) : "", kRefreshSeconds);
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (mutual) {
    options.watch_root_certs();
    options.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  } else {
    options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  }
  tls->credentials_ = grpc::experimental::TlsServerCredentials(options);
  if (tls->credentials_ == nullptr) return absl::InternalError("gRPC refused the TLS options");
  return tls;
}

TlsCredentials::~TlsCredentials() {
  // The server is gone by now; dropping the credentials stops the watcher
  // thread before its descriptors close (their numbers may be reused).
  credentials_.reset();
  MutexLock lock(&mutex_);
  if (identity_fd_ >= 0) close(identity_fd_);
  if (client_ca_fd_ >= 0) close(client_ca_fd_);
}

absl::Status TlsCredentials::Install(const TlsMaterial& material) {
  RETURN_IF_ERROR(Replace(&identity_fd_, material.identity_pem));
  if (!material.client_ca_pem.empty())
    RETURN_IF_ERROR(Replace(&client_ca_fd_, material.client_ca_pem));
  summary_ = material.summary;
  return absl::OkStatus();
}

absl::Status TlsCredentials::Reload() {
  ASSIGN_OR_RETURN(TlsMaterial material, LoadTlsMaterial(settings_));
  MutexLock lock(&mutex_);
  return Install(material);
}

std::string TlsCredentials::summary() const {
  MutexLock lock(&mutex_);
  return summary_;
}

}  // namespace vkserve
