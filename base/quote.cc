// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "base/quote.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace vkserve {
namespace {

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The longest prefix of `s` of at most `max_bytes` that does not end inside
// a UTF-8 sequence (a cut sequence would make the message invalid UTF-8,
// which a proto3 string field such as error_message must not hold).
absl::string_view Utf8Prefix(absl::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t cut = max_bytes;
  while (cut > 0 && IsContinuationByte(s[cut])) --cut;
  return s.substr(0, cut);
}

// Bytes of `s` the quoting shows: all of it when short, else the prefix.
std::string Shown(absl::string_view s) {
  std::string shown = absl::Utf8SafeCHexEscape(Utf8Prefix(s, kQuotedPrefixBytes));
  if (s.size() > kQuotedPrefixBytes) absl::StrAppend(&shown, "…");
  return shown;
}

}  // namespace

std::string Escaped(absl::string_view s) { return Shown(s); }

std::string Quoted(absl::string_view s, char quote) {
  const absl::string_view mark(&quote, 1);
  std::string out = absl::StrCat(mark, Shown(s), mark);
  if (s.size() > kQuotedPrefixBytes) absl::StrAppend(&out, " (", s.size(), " bytes)");
  return out;
}

std::string BoundedMessage(absl::string_view message, size_t max_bytes) {
  if (message.size() <= max_bytes) return std::string(message);
  return absl::StrCat(Utf8Prefix(message, max_bytes), "… (", message.size(), " bytes)");
}

absl::Status WithBoundedClientString(const absl::Status& status, absl::string_view client_string) {
  if (status.ok() || client_string.size() <= kQuotedPrefixBytes) return status;
  const std::string replacement =
      absl::StrCat(Shown(client_string), " (", client_string.size(), " bytes)");
  return absl::Status(status.code(),
                      absl::StrReplaceAll(status.message(), {{client_string, replacement}}));
}

}  // namespace vkserve
