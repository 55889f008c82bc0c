// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Transformers at dynamic sequence lengths: bert_tiny (dynamic [N,S] inputs)
// and gpt2_tiny_dyn (gpt2_tiny made dynamic by tests/runtime/
// make_dynamic_gpt2.py, the shared gpt2_tiny.onnx having its 16 tokens baked
// in) at S = 1, 7, 16 and 128 against onnxruntime-node running the same
// model, at FP32 and at FP16 precision. Each model runs in one session in
// the order 1, 7, 16, 128, 7, 1, 128, 16: a length seen before replays its
// recording (one per signature) and must reproduce its first outputs bit for
// bit. gpt2_tiny_dyn is checked against the original first, under
// onnxruntime alone: its outputs at S = 16 and the first 16 positions at
// every other S (a causal model's prefix) are the original's.
//
// FP32 bound: ModelTolerance (tests/testing/model_cases.h), as the other
// model tests. FP16 bound: FP16 precision stores weights and activations in
// fp16 and computes in fp32 inside each kernel (ModelOptions::precision);
// the case generator (tests/runtime/sequence_length_cases.py) has
// onnxruntime run the model with its GEMM weights and every activation
// rounded to fp16, and that reference's largest distance E16 from the fp32
// outputs is the model's own fp16 error at these inputs.
// vkserve at FP16 must be within ModelTolerance + 2 * E16 of the fp32
// outputs, and (proof that it rounded) at least E16 / 4 away, as the GEMM
// engine's fp16 cases demand of a single product.
//
// The cases and references are made once per binary into a temporary
// directory (python and node); a missing model fixture (tests/data/models)
// or a conversion that breaks fails every test here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/model.h"
#include "runtime/passes/fusion.h"
#include "runtime/session.h"
#include "tests/testing/gpu_fixture.h"
#include "tests/testing/model_cases.h"
#include "tests/testing/tensor_compare.h"

namespace vkserve {
namespace {

namespace fs = std::filesystem;
using testing::CaseData;
using testing::GpuTest;
using testing::ModelsDir;
using testing::ModelTolerance;
using testing::PythonCommand;
using testing::ReferenceCommand;

constexpr int64_t kLengths[] = {1, 7, 16, 128};
constexpr int64_t kRunOrder[] = {1, 7, 16, 128, 7, 1, 128, 16};
constexpr int64_t kFixedLength = 16;  // gpt2_tiny.onnx's baked sequence length

struct Cases {
  fs::path dir;
  std::string error;  // why they could not be made, if so
};

// tests/runtime/sequence_length_cases.py, then onnxruntime's references.
const Cases& GetCases() {
  static const Cases* cases = [] {
    auto* c = new Cases;
    c->dir =
        fs::temp_directory_path() / ("vkserve_sequence_length_test_" + std::to_string(getpid()));
    fs::remove_all(c->dir);
    fs::create_directories(c->dir);
    const std::vector<std::string> commands = {
        PythonCommand("tests/runtime/sequence_length_cases.py", {ModelsDir(), c->dir.string()}),
        ReferenceCommand(c->dir) + " >/dev/null"};
    for (const std::string& command : commands) {
      if (std::system(command.c_str()) != 0) {
        c->error = "failed: " + command;
        break;
      }
    }
    std::atexit([] { fs::remove_all(GetCases().dir); });
    return c;
  }();
  return *cases;
}

std::string CaseName(const std::string& model, int64_t length) {
  return model + "_s" + std::to_string(length);
}

absl::StatusOr<CaseData> ReadCase(const std::string& name, size_t num_outputs) {
  return testing::ReadCaseIn(GetCases().dir, name, num_outputs);
}

// Positions [0, count) of batch row `row` of a float [N,S,V] tensor, as
// [1,count,V]. REQUIRES: row < N, count <= S.
HostTensor Prefix(const HostTensor& t, int64_t row, int64_t count) {
  const int64_t v = t.shape[2];
  const auto* begin = t.data.begin() + (row * t.shape[1] * v) * 4;
  return HostTensor{t.dtype, {1, count, v}, TensorBytes(begin, begin + count * v * 4)};
}

// The rewrite changes only where shapes come from, but onnxruntime plans the
// fixed model differently (its shapes are constants), so sums may round
// differently: ~1e-7 of the scale. A wrong shape, position or mask is off by
// O(scale).
testing::Tolerance RewriteTolerance(const HostTensor& want) {
  return {1e-5, 1e-6 * testing::MaxAbsFinite(want)};
}

TEST(Gpt2TinyDynamicTest, MatchesTheFixedModelUnderOnnxRuntime) {
  ASSERT_TRUE(GetCases().error.empty()) << GetCases().error;
  for (int64_t row = 0;; ++row) {
    const std::string fixed_name = "gpt2_tiny_fixed_row" + std::to_string(row);
    if (!fs::exists(GetCases().dir / fixed_name)) {
      EXPECT_GE(row, 2) << "the batch has too few rows to check";
      break;
    }
    VKSERVE_ASSERT_OK_AND_ASSIGN(const CaseData fixed, ReadCase(fixed_name, 1));
    ASSERT_EQ(fixed.expected[0].dtype, DataType::kFloat);
    ASSERT_EQ(fixed.expected[0].shape.size(), 3u);
    ASSERT_EQ(fixed.expected[0].shape[1], kFixedLength);
    for (const int64_t s : kLengths) {
      SCOPED_TRACE("row " + std::to_string(row) + ", S = " + std::to_string(s));
      VKSERVE_ASSERT_OK_AND_ASSIGN(const CaseData dyn, ReadCase(CaseName("gpt2_tiny_dyn", s), 1));
      const HostTensor& logits = dyn.expected[0];
      ASSERT_EQ(logits.dtype, DataType::kFloat);
      ASSERT_EQ(logits.shape.size(), 3u);
      ASSERT_EQ(logits.shape[1], s);
      ASSERT_GT(logits.shape[0], row);
      ASSERT_EQ(logits.shape[2], fixed.expected[0].shape[2]);
      const int64_t count = std::min(s, kFixedLength);
      const HostTensor want = Prefix(fixed.expected[0], 0, count);
      const HostTensor got = Prefix(logits, row, count);
      const std::string diff = testing::CompareTensors(got, want, RewriteTolerance(want));
      EXPECT_TRUE(diff.empty()) << "gpt2_tiny_dyn vs gpt2_tiny: " << diff;
    }
  }
}

struct SequenceParam {
  const char* model;
  Precision precision;
};

std::string ParamName(const SequenceParam& p) {
  return std::string(p.model) + (p.precision == Precision::kFp16 ? "_fp16" : "_fp32");
}

class SequenceLengthTest : public GpuTest, public ::testing::WithParamInterface<SequenceParam> {
 protected:
  GpuContext gpu() { return {device_.get(), allocator_.get(), pipelines_.get()}; }

  std::string ModelPath() const {
    const std::string name = GetParam().model;
    return name == "gpt2_tiny_dyn" ? (GetCases().dir / "models" / "gpt2_tiny_dyn.onnx").string()
                                   : ModelsDir() + "/" + name + ".onnx";
  }

  // Output `o` of the first run at length `s` against onnxruntime, within
  // the precision's bound.
  void ExpectMatches(int64_t s, const RunOutput& got, const HostTensor& want32,
                     const HostTensor* want16) {
    testing::Tolerance tol = ModelTolerance(want32);
    const double diff32 = testing::MaxAbsDiff(got.host, want32);
    std::cout << ParamName(GetParam()) << " S=" << s << " output '" << got.name << "': max |diff| "
              << diff32 << " of max|want| " << testing::MaxAbsFinite(want32);
    if (want16 != nullptr) {
      const double e16 = testing::MaxAbsDiff(*want16, want32);
      std::cout << ", fp16 reference's own " << e16 << ", vs the fp16 reference "
                << testing::MaxAbsDiff(got.host, *want16);
      ASSERT_GT(e16, 0) << "the fp16 reference did not round";
      tol.atol += 2 * e16;
      EXPECT_GE(diff32, e16 / 4) << "closer to fp32 than fp16 operands allow: not rounded?";
    }
    std::cout << "\n";
    const std::string diff = testing::CompareTensors(got.host, want32, tol);
    EXPECT_TRUE(diff.empty()) << "output '" << got.name << "' vs onnxruntime: " << diff;
  }
};

TEST_P(SequenceLengthTest, MatchesOnnxRuntimeAtEachLengthAndReplays) {
  const SequenceParam& p = GetParam();
  for (const char* m : {"bert_tiny", "gpt2_tiny"}) {
    const std::string path = ModelsDir() + "/" + m + ".onnx";
    ASSERT_TRUE(fs::exists(path)) << "missing model fixture " << path;
  }
  ASSERT_TRUE(GetCases().error.empty()) << GetCases().error;
  ModelOptions options;
  options.precision = p.precision;
  VKSERVE_ASSERT_OK_AND_ASSIGN(const std::shared_ptr<Model> model,
                               Model::Load(ModelPath(), gpu(), options));
  // The dynamic shapes keep the attention, the GELU and the residuals
  // fusable (into the GEMMs' epilogues).
  const std::vector<Node>& nodes = model->graph().nodes;
  EXPECT_TRUE(std::any_of(nodes.begin(), nodes.end(),
                          [](const Node& n) { return n.op_type == "Attention"; }))
      << p.model << ": no attention fused";
  const bool bert = std::string(p.model) == "bert_tiny";
  for (const char* fused :
       {bert ? "MatMul+Add+Gelu" : "Gemm+Gelu", bert ? "MatMul+Add+Add" : "Gemm+Add"}) {
    EXPECT_TRUE(std::any_of(nodes.begin(), nodes.end(),
                            [&](const Node& n) { return FusedOpName(n) == fused; }))
        << p.model << ": no node fused as " << fused;
  }
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));

  const size_t num_outputs = model->outputs().size();
  std::map<int64_t, CaseData> data;
  std::map<int64_t, CaseData> fp16_data;
  std::map<int64_t, RunResult> first;
  for (const int64_t s : kRunOrder) {
    SCOPED_TRACE("S = " + std::to_string(s));
    if (!data.contains(s)) {
      VKSERVE_ASSERT_OK_AND_ASSIGN(data[s], ReadCase(CaseName(p.model, s), num_outputs));
      VKSERVE_ASSERT_OK_AND_ASSIGN(fp16_data[s],
                                   ReadCase(CaseName(p.model, s) + "_fp16ref", num_outputs));
    }
    const RunRequest request = testing::HostRequest(*model, data[s].inputs);
    VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult result, session->Run(request));
    ASSERT_EQ(result.outputs.size(), num_outputs);
    auto seen = first.find(s);
    if (seen == first.end()) {
      EXPECT_FALSE(result.timing.replayed);
      for (size_t o = 0; o < num_outputs; ++o) {
        ExpectMatches(s, result.outputs[o], data[s].expected[o],
                      p.precision == Precision::kFp16 ? &fp16_data[s].expected[o] : nullptr);
      }
      first.emplace(s, std::move(result));
      continue;
    }
    EXPECT_TRUE(result.timing.replayed) << "a length seen before must replay its recording";
    for (size_t o = 0; o < num_outputs; ++o) {
      const RunOutput& out = result.outputs[o];
      const std::string diff = testing::CompareBitwise(out.host, seen->second.outputs[o].host);
      EXPECT_TRUE(diff.empty()) << "repeat of output '" << out.name << "': " << diff;
    }
  }
  EXPECT_EQ(session->recording_count(), std::size(kLengths));
}

// Both models at both precisions; with VKSERVE_MODEL_SAMPLE set (the ASan
// stage, where the four took 150 s) each model at one precision.
std::vector<SequenceParam> SequenceParams() {
  if (std::getenv("VKSERVE_MODEL_SAMPLE") != nullptr) {
    return {{"bert_tiny", Precision::kFp32}, {"gpt2_tiny_dyn", Precision::kFp16}};
  }
  return {{"bert_tiny", Precision::kFp32},
          {"bert_tiny", Precision::kFp16},
          {"gpt2_tiny_dyn", Precision::kFp32},
          {"gpt2_tiny_dyn", Precision::kFp16}};
}

INSTANTIATE_TEST_SUITE_P(Models, SequenceLengthTest, ::testing::ValuesIn(SequenceParams()),
                         [](const ::testing::TestParamInfo<SequenceParam>& info) {
                           return ParamName(info.param);
                         });

}  // namespace
}  // namespace vkserve
