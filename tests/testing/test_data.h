// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Where the tests' data lives: tests/data/ in the source tree (the model
// fixtures in models/, the ONNX node conformance cases in onnx-node-tests/),
// found from $VKSERVE_SOURCE_DIR, which CTest sets for every test (default:
// the working directory). The data is part of the repository, so a test that
// cannot find it fails naming the path rather than skipping. Stateless;
// thread-safe.
#ifndef VKSERVE_TESTS_TESTING_TEST_DATA_H_
#define VKSERVE_TESTS_TESTING_TEST_DATA_H_

#include <cstdlib>
#include <string>

namespace vkserve::testing {

// $VKSERVE_SOURCE_DIR, or "." when unset or empty.
inline std::string SourceDir() {
  const char* v = std::getenv("VKSERVE_SOURCE_DIR");
  return v != nullptr && *v != '\0' ? v : ".";
}

// SourceDir()/tests/data.
inline std::string TestDataDir() { return SourceDir() + "/tests/data"; }

// The model fixtures: squeezenet1_1, mobilenet_v2, bert_tiny and gpt2_tiny (.onnx).
inline std::string ModelsDir() { return TestDataDir() + "/models"; }

// The ONNX v1.22.0 backend node cases, one test_<name>/ folder each.
inline std::string OnnxNodeTestsDir() { return TestDataDir() + "/onnx-node-tests"; }

}  // namespace vkserve::testing

#endif  // VKSERVE_TESTS_TESTING_TEST_DATA_H_
