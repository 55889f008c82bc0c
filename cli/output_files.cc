// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "cli/output_files.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "base/quote.h"

namespace vkserve {
namespace {

constexpr char kSuffix[] = ".npy";
constexpr size_t kMaxFileName = 255;  // NAME_MAX of Linux file systems

bool IsFileNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

}  // namespace

absl::StatusOr<std::vector<std::string>> OutputFileNames(const std::vector<std::string>& names) {
  std::vector<std::string> files;
  std::map<std::string, const std::string*> taken;  // file -> the output that has it
  for (const std::string& name : names) {
    if (name.find_first_not_of('.') == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("output name ", Quoted(name), " is not a file name; nothing written"));
    }
    std::string file = name;
    for (char& c : file) {
      if (!IsFileNameChar(c)) c = '_';
    }
    file += kSuffix;
    if (file.size() > kMaxFileName) {
      return absl::InvalidArgumentError(
          absl::StrCat("output name ", Quoted(name), " is longer than a file name may be (",
                       kMaxFileName + 1 - sizeof(kSuffix), " bytes); nothing written"));
    }
    auto [it, added] = taken.emplace(file, &name);
    if (!added) {
      return absl::InvalidArgumentError(absl::StrCat("outputs ", Quoted(*it->second), " and ",
                                                     Quoted(name), " would both be written to ",
                                                     file, "; nothing written"));
    }
    files.push_back(std::move(file));
  }
  return files;
}

}  // namespace vkserve
