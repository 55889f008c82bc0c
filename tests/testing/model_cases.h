// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Whole-model reference cases for the model tests: the case directories that
// tests/runtime/model_test_cases.py and its kin write (DIR/<name>/{model.onnx,
// inputs/<i>.npy, expected/<o>.npy} with expected/ from tests/reference/
// ort_batch.js), requests built from them, and the whole-network tolerance.
// The model fixtures' folder is test_data.h's ModelsDir().
// Stateless; thread-safe.
#ifndef VKSERVE_TESTS_TESTING_MODEL_CASES_H_
#define VKSERVE_TESTS_TESTING_MODEL_CASES_H_

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/testing/tensor_compare.h"
#include "tests/testing/test_data.h"

namespace vkserve::testing {

// $name, or `fallback` when unset.
std::string Env(const char* name, const std::string& fallback);

// `s` in single quotes, for the test's own shell commands (paths).
std::string Quote(const std::string& s);

// Shell commands the tests use to make their reference cases, each program
// and script found as the other tests find them ($VKSERVE_PYTHON, $NODE,
// SourceDir()), every argument quoted:
//  - the Python script `script` (a path under the source tree) with `args`;
//  - tests/reference/ort_batch.js over the cases under `dir` (onnxruntime's
//    outputs as each case's expected/);
//  - tests/reference/ort_run.js converting `onnx` to the .ort file `ort` at
//    optimization `level`.
std::string PythonCommand(const std::string& script, const std::vector<std::string>& args);
std::string ReferenceCommand(const std::filesystem::path& dir);
std::string ConvertToOrtCommand(const std::string& onnx, const std::string& ort,
                                const std::string& level);

// The whole file; "" when it cannot be read.
std::string ReadFile(const std::filesystem::path& path);

// One case directory's inputs (in the model's input order) and
// onnxruntime's outputs.
struct CaseData {
  std::vector<HostTensor> inputs;
  std::vector<HostTensor> expected;
};

// Reads CASES_DIR/<name>: inputs/<i>.npy while they exist and
// expected/<o>.npy for o < num_outputs. INTERNAL with onnxruntime's message
// when it wrote expected/error.txt instead.
absl::StatusOr<CaseData> ReadCaseIn(const std::filesystem::path& cases_dir, const std::string& name,
                                    size_t num_outputs);

// A request binding `inputs` on the host to the model's inputs in order.
// The request views the tensors' bytes: `inputs` must outlive it.
RunRequest HostRequest(const Model& model, const std::vector<HostTensor>& inputs);

// Whole-network tolerance: |got - want| <= 1e-3 * |want| + 1e-4 * max|want|.
// Float32 rounding from a different summation order is proportional to the
// magnitude of the summed terms, i.e. to the scale of the layer, not to each
// element: an output near zero (cancellation) carries an error of the
// output's scale times ~1e-6 per layer, so a relative bound alone fails on
// it. Scaling the absolute part by max|want| keeps the bound meaningful for
// any output range (mobilenet_v2 with random weights has logits near 1e-9),
// while a real bug (a wrong element, tap or channel) is off by O(scale).
Tolerance ModelTolerance(const HostTensor& want);

}  // namespace vkserve::testing

#endif  // VKSERVE_TESTS_TESTING_MODEL_CASES_H_
