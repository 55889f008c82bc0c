// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// HttpRequestHead: the request line of one HTTP/1.0 or 1.1 request head, as
// the HTTPS metrics endpoint (tls_metrics_endpoint.h) reads it from an
// untrusted client. Only what that endpoint needs: the method, the target
// and the version; header lines are checked for shape (a token name, then
// ':') and otherwise ignored.
//
// Stateless; thread-safe.
#ifndef VKSERVE_SERVER_DAEMON_HTTP_REQUEST_HEAD_H_
#define VKSERVE_SERVER_DAEMON_HTTP_REQUEST_HEAD_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace vkserve {

struct HttpRequestHead {
  std::string method;  // a token ("GET")
  std::string target;  // as sent ("/metrics?x=1"), never empty
  std::string path;    // the target before any '?'
};

// Parses `head`: the bytes up to and including the blank line that ends
// the header section ("...\r\n\r\n"). INVALID_ARGUMENT naming the problem
// (no client bytes quoted) for anything else: a request line that is not
// "<token> <target> HTTP/1.0|1.1", or a header line without a token name
// and ':'.
absl::StatusOr<HttpRequestHead> ParseHttpRequestHead(absl::string_view head);

}  // namespace vkserve

#endif  // VKSERVE_SERVER_DAEMON_HTTP_REQUEST_HEAD_H_
