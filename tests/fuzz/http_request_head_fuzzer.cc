// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// libFuzzer target: arbitrary bytes as the request head an HTTPS metrics
// client sends (server/daemon/http_request_head.h). Every input parses or is
// refused with INVALID_ARGUMENT; what parses satisfies the documented
// shape.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "server/daemon/http_request_head.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view head(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<vkserve::HttpRequestHead> parsed = vkserve::ParseHttpRequestHead(head);
  if (!parsed.ok()) {
    if (parsed.status().code() != absl::StatusCode::kInvalidArgument) std::abort();
    return 0;
  }
  if (parsed->method.empty() || parsed->target.empty() ||
      parsed->target.compare(0, parsed->path.size(), parsed->path) != 0) {
    std::abort();
  }
  return 0;
}
