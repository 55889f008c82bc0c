// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// libFuzzer target: arbitrary bytes into the ORT-format loader. Any input
// must end in a Graph or a Status; a crash, a sanitizer report, a hang or an
// out-of-memory is a bug. Built two ways: with clang's -fsanitize=fuzzer by
// tests/fuzz/run_fuzzers.sh for real fuzzing, and with fuzz_replay_main.cc
// into a CTest that replays the seed corpus (tests/fuzz/corpus/ort_loader/)
// on every build.
#include <cstddef>
#include <cstdint>

#include "runtime/loaders/ort_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vkserve::OrtLoadOptions options;
  options.max_tensor_bytes = uint64_t{1} << 28;  // keep one input's work small
  const auto graph = vkserve::LoadOrtModelFromBytes(
      absl::string_view(reinterpret_cast<const char*>(data), size), "fuzz.ort", options);
  (void)graph;
  return 0;
}
