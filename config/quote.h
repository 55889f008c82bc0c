// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Quoting names from configuration and model repositories (tensor, model and
// file names) in the messages of config/: a repository and its files are
// untrusted, so a quoted name is cut to a bounded prefix. (The server quotes
// what a client sends with server/quote.h, which also escapes control
// characters; config/ stays below it.)
//
// Stateless; thread-safe.
#ifndef VKSERVE_CONFIG_QUOTE_H_
#define VKSERVE_CONFIG_QUOTE_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace vkserve {

// `s` in double quotes; one longer than 64 bytes as its first 64 and its
// length: "abc..." (70000 bytes), as server/quote.h shows a client's.
inline std::string Quote(absl::string_view s) {
  constexpr size_t kShown = 64;
  if (s.size() <= kShown) return absl::StrCat("\"", s, "\"");
  return absl::StrCat("\"", s.substr(0, kShown), "...\" (", s.size(), " bytes)");
}

}  // namespace vkserve

#endif  // VKSERVE_CONFIG_QUOTE_H_
