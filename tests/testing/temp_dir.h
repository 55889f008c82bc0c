// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// MakeTempDir: a fresh directory under /tmp for a test's model repository or
// files. A test cannot run without one, so failing to make it (a full disk,
// say) ends the process with the reason instead of handing on a null path.
// Thread-safe (mkdtemp is).
#ifndef VKSERVE_TESTS_TESTING_TEMP_DIR_H_
#define VKSERVE_TESTS_TESTING_TEMP_DIR_H_

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace vkserve::testing {

// Returns "/tmp/vkserve_<tag>_XXXXXX" made unique; the caller removes it.
inline std::string MakeTempDir(std::string_view tag) {
  std::string pattern = "/tmp/vkserve_";
  pattern.append(tag);
  pattern += "_XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    std::fprintf(stderr, "mkdtemp %s: %s\n", pattern.c_str(), std::strerror(errno));
    std::abort();
  }
  return pattern;
}

}  // namespace vkserve::testing

#endif  // VKSERVE_TESTS_TESTING_TEMP_DIR_H_
