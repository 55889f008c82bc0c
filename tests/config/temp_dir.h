// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// TempDir: a scratch directory for config tests, removed with everything in
// it when the object goes away. Not thread-safe; one per test.
#ifndef VKSERVE_TESTS_CONFIG_TEMP_DIR_H_
#define VKSERVE_TESTS_CONFIG_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace vkserve::testing {

class TempDir {
 public:
  TempDir() {
    std::error_code ec;
    std::string pattern =
        (std::filesystem::temp_directory_path(ec) / "vkserve_config_XXXXXX").string();
    char* made = mkdtemp(pattern.data());
    path_ = made ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Path(const std::string& relative) const { return path_ + "/" + relative; }

  // Writes `contents` to `relative`, creating parent directories.
  std::string Write(const std::string& relative, const std::string& contents) const {
    std::string file = Path(relative);
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ec);
    std::ofstream(file, std::ios::binary) << contents;
    return file;
  }

  std::string MakeDir(const std::string& relative) const {
    std::string dir = Path(relative);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    return dir;
  }

 private:
  std::string path_;
};

}  // namespace vkserve::testing

#endif  // VKSERVE_TESTS_CONFIG_TEMP_DIR_H_
