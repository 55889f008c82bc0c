// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// libFuzzer target: arbitrary text into both configuration parsers — the
// server config (vkserve_config.proto text format) and a model's
// config.pbtxt (Triton's ModelConfig) — which validate every field and report
// file:line:field errors. The first byte picks the parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "config/model_config.h"
#include "config/server_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    const auto settings = vkserve::ParseServerConfig(text, "fuzz.pbtxt", "/nonexistent-fuzz-base");
    (void)settings;
  } else {
    const auto parsed = vkserve::ParseModelConfig(text, "config.pbtxt", "fuzzmodel");
    (void)parsed;
  }
  return 0;
}
