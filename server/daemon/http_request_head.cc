// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/daemon/http_request_head.h"

#include <algorithm>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

namespace vkserve {
namespace {

// RFC 9110 token characters.
bool IsToken(absl::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           absl::string_view("!#$%&'*+-.^_`|~").find(c) != absl::string_view::npos;
  });
}

// A request target: visible ASCII, no spaces or controls.
bool IsTarget(absl::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c > ' ' && c < 127; });
}

}  // namespace

absl::StatusOr<HttpRequestHead> ParseHttpRequestHead(absl::string_view head) {
  if (!absl::EndsWith(head, "\r\n\r\n")) {
    return absl::InvalidArgumentError("the request head does not end with an empty line");
  }
  head.remove_suffix(4);
  const std::vector<absl::string_view> lines = absl::StrSplit(head, "\r\n");
  const std::vector<absl::string_view> request = absl::StrSplit(lines.front(), ' ');
  if (request.size() != 3 || !IsToken(request[0]) || !IsTarget(request[1]) ||
      (request[2] != "HTTP/1.1" && request[2] != "HTTP/1.0")) {
    return absl::InvalidArgumentError("malformed request line");
  }
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t colon = lines[i].find(':');
    if (colon == absl::string_view::npos || !IsToken(lines[i].substr(0, colon))) {
      return absl::InvalidArgumentError("malformed header line");
    }
  }
  HttpRequestHead parsed;
  parsed.method = std::string(request[0]);
  parsed.target = std::string(request[1]);
  parsed.path = std::string(request[1].substr(0, request[1].find('?')));
  return parsed;
}

}  // namespace vkserve
