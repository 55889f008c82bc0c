// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// libFuzzer target: arbitrary bytes into the ONNX loader (protobuf parse,
// graph checks, topological sort). Any input must end in a Graph or a
// Status. External data is refused here (no base directory), so the target
// touches no files.
#include <cstddef>
#include <cstdint>

#include "runtime/loaders/onnx_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vkserve::OnnxLoadOptions options;
  options.max_tensor_bytes = uint64_t{1} << 28;  // keep one input's work small
  const auto graph =
      vkserve::LoadOnnxModelFromBytes(std::string_view(reinterpret_cast<const char*>(data), size),
                                      /*base_dir=*/"", "fuzz.onnx", options);
  (void)graph;
  return 0;
}
