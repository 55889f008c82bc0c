// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// spirv_coopmat_khr IN OUT: writes OUT, the SPV_KHR_cooperative_matrix form
// of the SPV_NV_cooperative_matrix module IN (coopmat_khr_rewrite.h), after
// checking it (coopmat_khr_check.h). The build runs it on every tensor-core
// shader; any failure stops the build with the shader's name and the reason.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "shaders/khr/coopmat_khr_check.h"
#include "shaders/khr/coopmat_khr_rewrite.h"

namespace {

int Fail(const char* path, const std::string& what) {
  std::fprintf(stderr, "spirv_coopmat_khr: %s: %s\n", path, what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: spirv_coopmat_khr IN.spv OUT.spv\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) return Fail(argv[1], "cannot open");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  if (bytes.size() % 4 != 0) return Fail(argv[1], "size is not a whole number of words");
  std::vector<uint32_t> words(bytes.size() / 4);
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(words.data()));

  absl::StatusOr<std::vector<uint32_t>> khr = vkserve::spirv::RewriteCoopmatNvToKhr(words);
  if (!khr.ok()) return Fail(argv[1], khr.status().ToString());
  if (absl::Status checked = vkserve::spirv::CheckCoopmatKhrModule(*khr); !checked.ok()) {
    return Fail(argv[1], "the KHR form fails its check: " + checked.ToString());
  }
  // Written aside and renamed, so an interrupted build leaves no half file.
  const std::string tmp = std::string(argv[2]) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(khr->data()),
              static_cast<std::streamsize>(khr->size() * sizeof(uint32_t)));
    if (!out) return Fail(argv[2], "cannot write");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, argv[2], ec);
  if (ec) return Fail(argv[2], ec.message());
  return 0;
}
