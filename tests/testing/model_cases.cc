// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "tests/testing/model_cases.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/loaders/npy.h"

namespace vkserve::testing {

namespace fs = std::filesystem;

std::string Env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

std::string PythonCommand(const std::string& script, const std::vector<std::string>& args) {
  std::string command = absl::StrCat(Env("VKSERVE_PYTHON", "/usr/bin/python3"), " ",
                                     Quote(SourceDir() + "/" + script));
  for (const std::string& arg : args) absl::StrAppend(&command, " ", Quote(arg));
  return command;
}

std::string ReferenceCommand(const fs::path& dir) {
  return Env("NODE", "node") + " " + Quote(SourceDir() + "/tests/reference/ort_batch.js") + " " +
         Quote(dir.string());
}

std::string ConvertToOrtCommand(const std::string& onnx, const std::string& ort,
                                const std::string& level) {
  return Env("NODE", "node") + " " + Quote(SourceDir() + "/tests/reference/ort_run.js") + " " +
         Quote(onnx) + " --convert-ort " + Quote(ort) + " --level " + Quote(level);
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

absl::StatusOr<CaseData> ReadCaseIn(const fs::path& cases_dir, const std::string& name,
                                    size_t num_outputs) {
  const fs::path dir = cases_dir / name;
  if (fs::exists(dir / "expected" / "error.txt")) {
    return absl::InternalError("onnxruntime failed: " + ReadFile(dir / "expected" / "error.txt"));
  }
  CaseData data;
  for (size_t i = 0; fs::exists(dir / "inputs" / (std::to_string(i) + ".npy")); ++i) {
    auto t = ReadNpy((dir / "inputs" / (std::to_string(i) + ".npy")).string());
    if (!t.ok()) return t.status();
    data.inputs.push_back(*std::move(t));
  }
  for (size_t o = 0; o < num_outputs; ++o) {
    auto t = ReadNpy((dir / "expected" / (std::to_string(o) + ".npy")).string());
    if (!t.ok()) return t.status();
    data.expected.push_back(*std::move(t));
  }
  return data;
}

RunRequest HostRequest(const Model& model, const std::vector<HostTensor>& inputs) {
  RunRequest request;
  for (size_t i = 0; i < inputs.size() && i < model.inputs().size(); ++i) {
    request.inputs.push_back(InputBinding::Host(model.inputs()[i].name, inputs[i]));
  }
  return request;
}

Tolerance ModelTolerance(const HostTensor& want) { return {1e-3, 1e-4 * MaxAbsFinite(want)}; }

}  // namespace vkserve::testing
