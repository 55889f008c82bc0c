// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Quoting untrusted strings in error messages and log lines: what a client
// sent (model, tensor, region and setting names, handles, datatypes...) and
// the names a model repository or configuration holds. Every message that
// names such a string goes through Quoted(), so none can be made large by
// its author: a status message travels in a gRPC trailer, and a client
// refuses trailers over its metadata limit (8 KiB by default), so quoting a
// 1 MB name in full would turn the real error into RESOURCE_EXHAUSTED
// "received initial metadata size exceeds limit". Control characters are
// escaped, so a name cannot forge log lines either.
//
// Stateless functions; thread-safe.
#ifndef VKSERVE_BASE_QUOTE_H_
#define VKSERVE_BASE_QUOTE_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace vkserve {

// Bytes of a client string quoted before it is cut.
inline constexpr size_t kQuotedPrefixBytes = 96;
// Longest status message sent to a client (ToGrpcStatus), a backstop for
// messages from layers that quote in full.
inline constexpr size_t kMaxStatusMessageBytes = 2048;

// 'name' for a short string; 'first bytes…' (N bytes) for one longer than
// kQuotedPrefixBytes, cut at a UTF-8 character boundary. Control characters
// and invalid UTF-8 are C-escaped (\n, \x01). `quote` is the quote mark
// (config/'s messages use '"').
std::string Quoted(absl::string_view s, char quote = '\'');

// What Quoted() shows of `s`, without the quotes and the length: for a
// client string that labels log lines (a request id).
std::string Escaped(absl::string_view s);

// `message` when it has at most `max_bytes` bytes, else its first bytes (at
// a UTF-8 boundary) followed by "… (N bytes)".
std::string BoundedMessage(absl::string_view message, size_t max_bytes = kMaxStatusMessageBytes);

// `status` with every occurrence of `client_string` in its message cut as
// Quoted() cuts it ("first bytes… (N bytes)", the layer's own quotes kept):
// for a status from a layer that quotes a client's string in full (runtime/
// names tensors as the model file does). A short string is left as it is.
absl::Status WithBoundedClientString(const absl::Status& status, absl::string_view client_string);

}  // namespace vkserve

#endif  // VKSERVE_BASE_QUOTE_H_
