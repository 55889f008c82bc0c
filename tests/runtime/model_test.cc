// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Whole models against onnxruntime: squeezenet1_1, mobilenet_v2, bert_tiny
// and gpt2_tiny, the model fixtures in tests/data/models (every one of them:
// a fixture not listed here fails the test), the example repository's tinynet
// and a generated convnet must load, run only on the GPU and match
// onnxruntime-node on a fixed random input. Each also runs as the ONNX
// Runtime `.ort` files onnxruntime-node writes for it at graph optimization
// levels basic, extended and all (CPU-provider fusions: FusedConv,
// FusedMatMul, SkipLayerNormalization, NCHWc blocking, ...): every node on
// the GPU and the same outputs as onnxruntime running the `.onnx`. Replayed
// runs must reproduce the first bit for bit. A small y = Relu(x + c) model checks GPU-resident
// outputs fed back as inputs, DeviceTensor::Read/Release, and the
// INVALID_ARGUMENT errors of Session::Run.
//
// Inputs and the small model come from tests/runtime/model_test_cases.py
// (/usr/bin/python3, numpy and onnx), references from tests/reference/
// ort_batch.js; both run once per test binary into a temporary directory.
#include "runtime/model.h"

#include <gmock/gmock.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/session.h"
#include "tests/testing/gpu_fixture.h"
#include "tests/testing/model_cases.h"
#include "tests/testing/tensor_compare.h"

namespace vkserve {
namespace {

namespace fs = std::filesystem;
using testing::CaseData;
using testing::ConvertToOrtCommand;
using testing::GpuTest;
using ::testing::HasSubstr;
using testing::HostRequest;
using testing::ModelsDir;
using testing::ModelTolerance;
using testing::PythonCommand;
using testing::ReadCaseIn;
using testing::ReferenceCommand;
using testing::SourceDir;

// The model fixtures of tests/data/models.
constexpr const char* kFixtures[] = {"squeezenet1_1", "mobilenet_v2", "bert_tiny", "gpt2_tiny"};
// Every model the suite runs: the fixtures, the example repository's model
// and the generated convnet.
constexpr const char* kModels[] = {"squeezenet1_1", "mobilenet_v2", "bert_tiny",
                                   "gpt2_tiny",     "tinynet",      "convnet"};

// Where model `name` lives: the model fixtures, the example repository, or
// the generated convnet.
std::string OnnxPath(const fs::path& cases_dir, const std::string& name) {
  if (name == "convnet") return (cases_dir / "convnet" / "model.onnx").string();
  if (name == "tinynet") return SourceDir() + "/config/examples/repository/tinynet/1/model.onnx";
  return ModelsDir() + "/" + name + ".onnx";
}

// The generated cases, made once for the whole binary.
struct Cases {
  fs::path dir;
  std::string error;  // why they could not be made, if so
};

const Cases& GetCases() {
  static const Cases* cases = [] {
    auto* c = new Cases;
    c->dir = fs::temp_directory_path() / ("vkserve_model_test_" + std::to_string(getpid()));
    fs::remove_all(c->dir);
    fs::create_directories(c->dir);
    const std::string script = "tests/runtime/model_test_cases.py";
    std::vector<std::string> commands;
    for (const char* m : kModels) {
      if (std::string(m) == "convnet") continue;  // generated below
      const std::string path = OnnxPath(c->dir, m);
      if (!fs::exists(path)) continue;  // the test of that model fails naming the path
      commands.push_back(PythonCommand(script, {"model", m, path, c->dir.string()}));
    }
    // bert_tiny at [16,128] for LargeBatchTest.
    if (fs::exists(ModelsDir() + "/bert_tiny.onnx")) {
      commands.push_back(PythonCommand(script, {"model", "bert_tiny_16x128",
                                                ModelsDir() + "/bert_tiny.onnx", c->dir.string(),
                                                "N=16,S=128"}));
    }
    commands.push_back(PythonCommand(script, {"relu_add", c->dir.string()}));
    commands.push_back(PythonCommand(script, {"convnet", c->dir.string()}));
    // The .ort twins; a model whose conversion fails has no file, and its
    // test says so.
    std::vector<std::string> conversions;
    for (const char* m : kModels) {
      const std::string path = OnnxPath(c->dir, m);
      if (!fs::exists(path) && std::string(m) != "convnet") continue;
      for (const char* level : {"basic", "extended", "all"}) {
        const fs::path ort = c->dir / (std::string(m) + "_" + level + ".ort");
        conversions.push_back(ConvertToOrtCommand(path, ort.string(), level));
      }
    }
    commands.push_back(ReferenceCommand(c->dir));
    for (size_t i = 0; i < commands.size(); ++i) {
      const int status = std::system((commands[i] + " >/dev/null").c_str());
      // ort_batch.js (last) exits 1 when some model has no reference: that
      // model's test reports onnxruntime's error (expected/error.txt).
      const bool ok = status == 0 ||
                      (i + 1 == commands.size() && WIFEXITED(status) && WEXITSTATUS(status) == 1);
      if (!ok) {
        c->error = "failed: " + commands[i];
        break;
      }
    }
    for (const std::string& command : conversions) {
      if (std::system((command + " >/dev/null").c_str()) != 0)
        std::cerr << "failed: " << command << "\n";
    }
    std::atexit([] { fs::remove_all(GetCases().dir); });
    return c;
  }();
  return *cases;
}

absl::StatusOr<CaseData> ReadCase(const std::string& name, size_t num_outputs) {
  return ReadCaseIn(GetCases().dir, name, num_outputs);
}

struct ModelParam {
  const char* name;
  const char* ort_level = nullptr;  // the .ort twin at this optimization level; null: the .onnx
};

std::string ParamName(const ModelParam& p) {
  return p.ort_level == nullptr ? p.name : std::string(p.name) + "_ort_" + p.ort_level;
}

class ModelTest : public GpuTest, public ::testing::WithParamInterface<ModelParam> {
 protected:
  GpuContext gpu() { return {device_.get(), allocator_.get(), pipelines_.get()}; }
};

TEST_P(ModelTest, MatchesOnnxRuntimeAndReplays) {
  const ModelParam& p = GetParam();
  ASSERT_TRUE(GetCases().error.empty()) << GetCases().error;
  ASSERT_TRUE(fs::exists(OnnxPath(GetCases().dir, p.name)))
      << "missing model " << OnnxPath(GetCases().dir, p.name);
  const std::string path =
      p.ort_level == nullptr
          ? OnnxPath(GetCases().dir, p.name)
          : (GetCases().dir / (std::string(p.name) + "_" + p.ort_level + ".ort")).string();
  ASSERT_TRUE(fs::exists(path)) << "onnxruntime-node did not convert " << p.name << " at level "
                                << p.ort_level;

  auto loaded = Model::Load(path, gpu());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const std::shared_ptr<Model> model = *loaded;
  VKSERVE_ASSERT_OK_AND_ASSIGN(const CaseData data, ReadCase(p.name, model->outputs().size()));
  ASSERT_EQ(data.inputs.size(), model->inputs().size());

  std::vector<std::vector<int64_t>> shapes;
  for (const HostTensor& t : data.inputs) shapes.push_back(t.shape);
  auto report = model->Inspect(&shapes);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->cpu_nodes, 0);
  EXPECT_GT(report->gpu_nodes, 0);
  for (const NodeReport& n : report->nodes) {
    EXPECT_TRUE(n.device.starts_with("gpu"))
        << n.name << " (" << n.op_type << ") runs on " << n.device;
  }
  EXPECT_LE(report->arena_bytes, report->tensor_bytes_total);

  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
  const RunRequest request = HostRequest(*model, data.inputs);
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult first, session->Run(request));
  ASSERT_EQ(first.outputs.size(), data.expected.size());
  for (size_t o = 0; o < first.outputs.size(); ++o) {
    const HostTensor& want = data.expected[o];
    const testing::Tolerance tol = ModelTolerance(want);
    const std::string diff = testing::CompareTensors(first.outputs[o].host, want, tol);
    const double max_diff = testing::MaxAbsDiff(first.outputs[o].host, want);
    std::cout << p.name << " output '" << first.outputs[o].name << "': max |diff| " << max_diff
              << " = " << max_diff / std::max(testing::MaxAbsFinite(want), 1e-30)
              << " of max|want| " << testing::MaxAbsFinite(want) << "\n";
    EXPECT_TRUE(diff.empty()) << "output '" << first.outputs[o].name
                              << "' vs onnxruntime: " << diff;
  }

  for (int run = 0; run < 2; ++run) {
    VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult again, session->Run(request));
    EXPECT_TRUE(again.timing.replayed);
    if (again.timing.gpu_ns > 0) {  // the device has timestamps
      // The nodes' span lies within the whole submission's (which adds the
      // copies of inputs in and outputs out where the memory needs them).
      EXPECT_GT(again.timing.gpu_compute_ns, 0u);
      EXPECT_LE(again.timing.gpu_compute_ns, again.timing.gpu_ns);
    }
    ASSERT_EQ(again.outputs.size(), first.outputs.size());
    for (size_t o = 0; o < first.outputs.size(); ++o) {
      const std::string diff =
          testing::CompareBitwise(again.outputs[o].host, first.outputs[o].host);
      EXPECT_TRUE(diff.empty()) << "replay " << run + 1 << ", output '" << first.outputs[o].name
                                << "': " << diff;
    }
  }
  EXPECT_EQ(session->recording_count(), 1u);
}

// Every model as .onnx and as its .ort twin at each level. With
// VKSERVE_MODEL_SAMPLE set (scripts/sanitize.sh's ASan stage, where this suite
// took 5 of the stage's 7 test minutes), each model in one form, rotating over
// .onnx and the three levels so that both loaders and every level still run.
std::vector<ModelParam> AllModelParams() {
  const bool sample = std::getenv("VKSERVE_MODEL_SAMPLE") != nullptr;
  const char* const levels[] = {"basic", "extended", "all"};
  std::vector<ModelParam> params;
  int index = 0;
  for (const char* m : kModels) {
    const int form = index++ % 4;  // 0: .onnx, 1-3: the twin at levels[form - 1]
    if (!sample || form == 0) params.push_back({m});
    for (int l = 0; l < 3; ++l) {
      if (!sample || form == l + 1) params.push_back({m, levels[l]});
    }
  }
  return params;
}

// The corpus covers every model fixture: one added to tests/data/models
// without joining kFixtures fails here.
TEST(ModelCorpusTest, EveryModelFixtureIsInTheCorpus) {
  ASSERT_TRUE(fs::is_directory(ModelsDir())) << "missing " << ModelsDir();
  std::vector<std::string> found;
  for (const fs::directory_entry& e : fs::directory_iterator(ModelsDir())) {
    if (e.path().extension() == ".onnx") found.push_back(e.path().stem().string());
  }
  for (const std::string& f : found) {
    EXPECT_THAT(kFixtures, ::testing::Contains(f)) << "fixture " << f << " is not in the corpus";
  }
  for (const char* f : kFixtures) {
    EXPECT_THAT(found, ::testing::Contains(std::string(f))) << "missing model fixture " << f;
  }
}

// bert_tiny beyond host folding's limit: its attention-mask indices
// (Range(N) * S + Range(S), int64 [N,1,1,S]) and token-type ids are known at
// plan time, and above the limit int64 Add/Mul/Expand/Gather/Where run on the
// GPU. At N*S > 65,536 with the default limit that was refused with
// UNIMPLEMENTED "Add ... input 0 has type int64".
class LargeBatchTest : public GpuTest {
 protected:
  GpuContext gpu() { return {device_.get(), allocator_.get(), pipelines_.get()}; }

  // Runs bert_tiny on case `name` and compares with onnxruntime.
  void ExpectMatches(const std::shared_ptr<Model>& model, const fs::path& cases_dir,
                     const std::string& name) {
    VKSERVE_ASSERT_OK_AND_ASSIGN(const CaseData data,
                                 ReadCaseIn(cases_dir, name, model->outputs().size()));
    VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
    VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult result,
                                 session->Run(HostRequest(*model, data.inputs)));
    ASSERT_EQ(result.outputs.size(), data.expected.size());
    for (size_t o = 0; o < result.outputs.size(); ++o) {
      const std::string diff = testing::CompareTensors(result.outputs[o].host, data.expected[o],
                                                       ModelTolerance(data.expected[o]));
      EXPECT_TRUE(diff.empty()) << "output '" << result.outputs[o].name
                                << "' vs onnxruntime: " << diff;
    }
  }
};

// The same graph path at a lavapipe-sized batch: folding limited to 1,024
// elements, bert_tiny at [16,128] (2,048 tokens).
TEST_F(LargeBatchTest, BertTinyWithInt64IndicesOnTheGpuMatchesOnnxRuntime) {
  ASSERT_TRUE(GetCases().error.empty()) << GetCases().error;
  const std::string path = ModelsDir() + "/bert_tiny.onnx";
  ASSERT_TRUE(fs::exists(path)) << "missing model fixture " << path;
  ModelOptions options;
  options.max_fold_elements = 1024;
  VKSERVE_ASSERT_OK_AND_ASSIGN(const std::shared_ptr<Model> model,
                               Model::Load(path, gpu(), options));
  const std::vector<std::vector<int64_t>> shapes = {{16, 128}, {16, 128}};
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<const Plan> plan, model->GetPlan(shapes));
  // The index arithmetic (Add/Mul on int64) runs as GPU kernels.
  std::vector<std::string> int64_kernels;
  for (const PlannedNode& n : plan->nodes) {
    if (n.kind != PlannedNode::Kind::kKernel || n.outputs.empty() || n.outputs[0] < 0) continue;
    if (plan->values[n.outputs[0]].desc.dtype == DataType::kInt64)
      int64_kernels.push_back(n.node->op_type);
  }
  EXPECT_THAT(int64_kernels, ::testing::Contains("Add")) << ::testing::PrintToString(int64_kernels);
  ExpectMatches(model, GetCases().dir, "bert_tiny_16x128");
}

// [520,128] (66,560 tokens) with the default limit. Where the device binds
// the 136 MB [520,128,512] activations it must match onnxruntime; lavapipe
// binds at most 128 MiB, and the plan says so instead of refusing int64.
TEST_F(LargeBatchTest, BertTinyAtN520S128) {
  const std::string path = ModelsDir() + "/bert_tiny.onnx";
  ASSERT_TRUE(fs::exists(path)) << "missing model fixture " << path;
  VKSERVE_ASSERT_OK_AND_ASSIGN(const std::shared_ptr<Model> model, Model::Load(path, gpu()));
  const std::vector<std::vector<int64_t>> shapes = {{520, 128}, {520, 128}};
  const auto plan = model->GetPlan(shapes);
  if (device_->info().max_storage_buffer_range < uint64_t{520} * 128 * 512 * 4) {
    EXPECT_TRUE(absl::IsInvalidArgument(plan.status())) << plan.status();
    EXPECT_THAT(std::string(plan.status().message()), HasSubstr("maxStorageBufferRange"));
    EXPECT_THAT(std::string(plan.status().message()), ::testing::Not(HasSubstr("int64")));
    return;
  }
  ASSERT_TRUE(plan.ok()) << plan.status();
  const fs::path dir = GetCases().dir / "large";
  const std::string make =
      PythonCommand("tests/runtime/model_test_cases.py",
                    {"model", "bert_tiny_520x128", path, dir.string(), "N=520,S=128"}) +
      " && " + ReferenceCommand(dir) + " >/dev/null";
  ASSERT_EQ(std::system(make.c_str()), 0) << make;
  ExpectMatches(model, dir, "bert_tiny_520x128");
}

INSTANTIATE_TEST_SUITE_P(Models, ModelTest, ::testing::ValuesIn(AllModelParams()),
                         [](const ::testing::TestParamInfo<ModelParam>& info) {
                           return ParamName(info.param);
                         });

// y = Relu(x + c), x and y float[2,3,4,5].
class ReluAddTest : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    ASSERT_TRUE(GetCases().error.empty()) << GetCases().error;
    const GpuContext gpu{device_.get(), allocator_.get(), pipelines_.get()};
    VKSERVE_ASSERT_OK_AND_ASSIGN(
        model_, Model::Load((GetCases().dir / "relu_add" / "model.onnx").string(), gpu));
    VKSERVE_ASSERT_OK_AND_ASSIGN(data_, ReadCase("relu_add", 1));
    VKSERVE_ASSERT_OK_AND_ASSIGN(session_, Session::Create(model_));
  }
  void TearDown() override {
    session_.reset();
    model_.reset();
    GpuTest::TearDown();
  }

  std::shared_ptr<Model> model_;
  CaseData data_;
  std::unique_ptr<Session> session_;
};

TEST_F(ReluAddTest, DeviceOutputFedBackMatchesHostPath) {
  // Run 1: y1 = Relu(x + c), kept on the GPU.
  RunRequest request = HostRequest(*model_, data_.inputs);
  request.outputs.push_back({"y", OutputLocation::kDevice, nullptr});
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult first, session_->Run(request));
  ASSERT_EQ(first.outputs.size(), 1u);
  const std::shared_ptr<DeviceTensor> y1 = first.outputs[0].device;
  ASSERT_NE(y1, nullptr);
  EXPECT_EQ(y1->dtype(), DataType::kFloat);
  EXPECT_EQ(y1->shape(), (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(first.outputs[0].shape, y1->shape());
  EXPECT_EQ(first.timing.bytes_read_back, 0u);

  // Run 2: y1 bound as the input, without a copy.
  RunRequest from_device;
  from_device.inputs.push_back(InputBinding::Device("x", y1));
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult second, session_->Run(from_device));
  EXPECT_EQ(second.timing.bytes_uploaded, 0u);

  // The same through the host: read y1 back and upload it.
  VKSERVE_ASSERT_OK_AND_ASSIGN(const HostTensor y1_host, y1->Read());
  EXPECT_TRUE(testing::CompareTensors(y1_host, data_.expected[0], {1e-6, 0}).empty())
      << testing::CompareTensors(y1_host, data_.expected[0], {1e-6, 0});
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult via_host,
                               session_->Run(HostRequest(*model_, {y1_host})));
  const std::string diff =
      testing::CompareBitwise(second.outputs[0].host, via_host.outputs[0].host);
  EXPECT_TRUE(diff.empty()) << "device-bound input vs host input: " << diff;

  // Released: reads and runs are FAILED_PRECONDITION naming the tensor.
  EXPECT_FALSE(y1->released());
  y1->Release();
  y1->Release();  // idempotent
  EXPECT_TRUE(y1->released());
  const auto read = y1->Read();
  EXPECT_TRUE(absl::IsFailedPrecondition(read.status())) << read.status();
  const auto run = session_->Run(from_device);
  EXPECT_TRUE(absl::IsFailedPrecondition(run.status())) << run.status();
  EXPECT_THAT(std::string(run.status().message()), HasSubstr(y1->name()));
}

TEST_F(ReluAddTest, HostOutputSinkGetsTheBytesInOneCopy) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult plain,
                               session_->Run(HostRequest(*model_, data_.inputs)));
  RunRequest request = HostRequest(*model_, data_.inputs);
  std::vector<uint8_t> sink;
  std::vector<std::pair<std::vector<int64_t>, uint64_t>> calls;
  request.Output("y").sink = [&](const std::vector<int64_t>& shape, uint64_t bytes) {
    calls.emplace_back(shape, bytes);
    sink.assign(bytes, 0xAB);
    return OutputPieces{std::span<uint8_t>(sink)};
  };
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult sunk, session_->Run(request));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].first, (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(calls[0].second, 2u * 3 * 4 * 5 * 4);
  EXPECT_TRUE(sunk.outputs[0].in_sink);
  EXPECT_TRUE(sunk.outputs[0].host.data.empty());
  EXPECT_EQ(sunk.timing.bytes_read_back, plain.timing.bytes_read_back);
  EXPECT_EQ(sink, plain.outputs[0].host.data);  // bit for bit the host path's bytes

  // A sink that declines (no pieces) leaves the bytes in RunOutput::host.
  request.Output("y").sink = [](const std::vector<int64_t>&, uint64_t) { return OutputPieces{}; };
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult declined, session_->Run(request));
  EXPECT_FALSE(declined.outputs[0].in_sink);
  EXPECT_EQ(declined.outputs[0].host.data, plain.outputs[0].host.data);
}

// A sink's pieces tile the output in order; a null piece's bytes are
// skipped. Pieces that do not tile the output are the sink's bug: INTERNAL.
TEST_F(ReluAddTest, SinkPiecesTileTheOutputSkippingNullOnes) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult plain,
                               session_->Run(HostRequest(*model_, data_.inputs)));
  const std::vector<uint8_t> want = plain.outputs[0].host.data.ToVector();
  RunRequest request = HostRequest(*model_, data_.inputs);
  std::vector<uint8_t> head(100, 0xAB), tail(80, 0xAB);
  request.Output("y").sink = [&](const std::vector<int64_t>&, uint64_t bytes) {
    return OutputPieces{std::span<uint8_t>(head),
                        std::span<uint8_t>(static_cast<uint8_t*>(nullptr), bytes - 180),
                        std::span<uint8_t>(tail)};
  };
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult sunk, session_->Run(request));
  EXPECT_TRUE(sunk.outputs[0].in_sink);
  EXPECT_EQ(head, std::vector<uint8_t>(want.begin(), want.begin() + 100));
  EXPECT_EQ(tail, std::vector<uint8_t>(want.end() - 80, want.end()));

  request.Output("y").sink = [&](const std::vector<int64_t>&, uint64_t) {
    return OutputPieces{std::span<uint8_t>(head)};
  };
  EXPECT_TRUE(absl::IsInternal(session_->Run(request).status()));
}

// A staged output read back in chunks, each copied into the sink once the
// GPU has set its event: 480 bytes in 100-byte chunks (the last one 80).
TEST_F(ReluAddTest, ChunkedReadbackFillsTheSinkAsTheGpuStagesIt) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult plain,
                               session_->Run(HostRequest(*model_, data_.inputs)));
  SessionOptions options;
  options.stage_outputs = true;
  options.overlapped_readback_bytes = 64;
  options.readback_chunk_bytes = 100;
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> chunked, Session::Create(model_, options));
  RunRequest request = HostRequest(*model_, data_.inputs);
  std::vector<uint8_t> sink;
  int calls = 0;
  request.Output("y").sink = [&](const std::vector<int64_t>&, uint64_t bytes) {
    ++calls;
    sink.assign(bytes, 0xAB);
    return OutputPieces{std::span<uint8_t>(sink)};
  };
  for (int run = 0; run < 3; ++run) {  // recorded once, replayed with the events reset
    calls = 0;
    VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult result, chunked->Run(request));
    EXPECT_EQ(calls, 1);
    ASSERT_TRUE(result.outputs[0].in_sink);
    EXPECT_EQ(result.timing.bytes_read_back, plain.timing.bytes_read_back);
    HostTensor got = plain.outputs[0].host;
    got.data = sink;
    EXPECT_TRUE(testing::CompareTensors(got, data_.expected[0], {1e-6, 0}).empty())
        << "run " << run
        << " vs onnxruntime: " << testing::CompareTensors(got, data_.expected[0], {1e-6, 0});
    EXPECT_EQ(sink, plain.outputs[0].host.data) << "run " << run;
    EXPECT_GT(result.timing.readback_ns, 0u);
    EXPECT_LE(result.timing.upload_ns + result.timing.record_ns + result.timing.submit_ns +
                  result.timing.wait_ns + result.timing.readback_ns,
              result.timing.total_ns);
  }
  EXPECT_EQ(chunked->recording_count(), 1u);
  // Without a sink (or with one that declines) the staged bytes are read whole.
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult no_sink,
                               chunked->Run(HostRequest(*model_, data_.inputs)));
  EXPECT_EQ(no_sink.outputs[0].host.data, plain.outputs[0].host.data);
  request.Output("y").sink = [](const std::vector<int64_t>&, uint64_t) { return OutputPieces{}; };
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult declined, chunked->Run(request));
  EXPECT_FALSE(declined.outputs[0].in_sink);
  EXPECT_EQ(declined.outputs[0].host.data, plain.outputs[0].host.data);
}

// A staged output at or above view_readback_bytes comes back as a view of
// its staging buffer, and a view still held is never written under: the
// next run stages into a new buffer (and re-records); once released, runs
// replay again.
TEST_F(ReluAddTest, ViewedReadbackIsNeverOverwrittenWhileHeld) {
  SessionOptions options;
  options.stage_outputs = true;
  options.view_readback_bytes = 64;  // relu_add's output: 480 bytes
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> viewing, Session::Create(model_, options));
  std::vector<HostTensor> other = data_.inputs;
  for (size_t i = 0; i + 4 <= other[0].data.size(); i += 4) {  // x -> -2x + 1: other outputs
    float f;
    std::memcpy(&f, other[0].data.data() + i, 4);
    f = -2 * f + 1;
    std::memcpy(other[0].data.data() + i, &f, 4);
  }
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult other_plain,
                               session_->Run(HostRequest(*model_, other)));
  ASSERT_NE(other_plain.outputs[0].host.data, data_.expected[0].data);

  std::optional<RunResult> first;
  VKSERVE_ASSERT_OK_AND_ASSIGN(first, viewing->Run(HostRequest(*model_, data_.inputs)));
  ASSERT_TRUE(first->outputs[0].host.data.is_view());
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult second, viewing->Run(HostRequest(*model_, other)));
  ASSERT_TRUE(second.outputs[0].host.data.is_view());
  EXPECT_NE(first->outputs[0].host.data.data(), second.outputs[0].host.data.data());
  EXPECT_TRUE(testing::CompareTensors(first->outputs[0].host, data_.expected[0], {1e-6, 0}).empty())
      << "the first run's view vs onnxruntime, after a second run: "
      << testing::CompareTensors(first->outputs[0].host, data_.expected[0], {1e-6, 0});
  EXPECT_EQ(second.outputs[0].host.data, other_plain.outputs[0].host.data);
  EXPECT_EQ(second.timing.bytes_read_back, 480u);
  EXPECT_EQ(viewing->recording_count(), 2u);  // the held view forced a new staging buffer

  // `second` holds the buffer the session stages into now: the third run
  // takes another; once the third is released, the fourth replays into it.
  first.reset();
  const uint8_t* second_bytes = second.outputs[0].host.data.data();
  {
    VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult third, viewing->Run(HostRequest(*model_, other)));
    EXPECT_NE(third.outputs[0].host.data.data(), second_bytes);  // `second` still holds its view
    EXPECT_EQ(third.outputs[0].host.data, other_plain.outputs[0].host.data);
  }
  EXPECT_EQ(viewing->recording_count(), 3u);
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult fourth,
                               viewing->Run(HostRequest(*model_, data_.inputs)));
  EXPECT_TRUE(
      testing::CompareTensors(fourth.outputs[0].host, data_.expected[0], {1e-6, 0}).empty());
  EXPECT_EQ(second.outputs[0].host.data, other_plain.outputs[0].host.data);
  EXPECT_EQ(viewing->recording_count(), 3u)
      << "a released view's buffer is reused without re-recording";

  // Below the threshold the bytes are the output's own.
  options.view_readback_bytes = 481;
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> copying, Session::Create(model_, options));
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult copied,
                               copying->Run(HostRequest(*model_, data_.inputs)));
  EXPECT_FALSE(copied.outputs[0].host.data.is_view());
  EXPECT_TRUE(
      testing::CompareTensors(copied.outputs[0].host, data_.expected[0], {1e-6, 0}).empty());
}

// Unprofiled runs time the run's phases (a span each); a profiled run is
// recorded apart with every dispatch timed and traced, so switching between
// the two re-records, and the outputs are the same either way.
TEST_F(ReluAddTest, OnlyProfiledRunsTimeEachDispatch) {
  if (device_->info().timestamp_valid_bits == 0) GTEST_SKIP() << "device has no timestamps";
  SessionOptions options;
  options.stage_outputs = true;  // a readback span too
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model_, options));
  RunRequest request = HostRequest(*model_, data_.inputs);
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult plain, session->Run(request));
  EXPECT_TRUE(plain.trace.empty());
  EXPECT_GT(plain.timing.gpu_ns, 0u);
  EXPECT_LE(plain.timing.gpu_compute_ns, plain.timing.gpu_ns);
  request.profile = true;
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult profiled, session->Run(request));
  EXPECT_FALSE(profiled.timing.replayed);
  int dispatches = 0, readbacks = 0;
  for (const TraceEvent& e : profiled.trace) {
    if (e.category != "gpu") continue;
    if (!e.op_type.empty()) ++dispatches;
    if (e.name.starts_with("readback ")) ++readbacks;
  }
  EXPECT_GE(dispatches, 1);  // each node's own span, named after it
  EXPECT_EQ(readbacks, 1);
  EXPECT_EQ(profiled.outputs[0].host.data, plain.outputs[0].host.data);
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult profiled_again, session->Run(request));
  EXPECT_TRUE(profiled_again.timing.replayed);
  request.profile = false;
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult back, session->Run(request));
  EXPECT_FALSE(back.timing.replayed);
  EXPECT_EQ(back.outputs[0].host.data, plain.outputs[0].host.data);
  EXPECT_EQ(session->recording_count(), 3u);
}

TEST_F(ReluAddTest, ReadWithReleaseFreesTheTensor) {
  RunRequest request = HostRequest(*model_, data_.inputs);
  request.outputs.push_back({"y", OutputLocation::kDevice, nullptr});
  VKSERVE_ASSERT_OK_AND_ASSIGN(RunResult result, session_->Run(request));
  const std::shared_ptr<DeviceTensor> y = result.outputs[0].device;
  ASSERT_NE(y, nullptr);
  VKSERVE_ASSERT_OK_AND_ASSIGN(const HostTensor host, y->Read(/*release=*/true));
  EXPECT_TRUE(y->released());
  EXPECT_TRUE(testing::CompareTensors(host, data_.expected[0], {1e-6, 0}).empty());
  EXPECT_TRUE(absl::IsFailedPrecondition(y->buffer().status()));
}

TEST_F(ReluAddTest, BadInputsAreInvalidArgumentNamingTheProblem) {
  const HostTensor& x = data_.inputs[0];
  struct BadCase {
    std::string what;
    RunRequest request;
    std::vector<std::string> message_has;
  };
  std::vector<BadCase> cases;
  auto one = [](std::string name, DataType dtype, std::vector<int64_t> shape,
                std::span<const uint8_t> bytes) {
    RunRequest r;
    r.inputs.push_back(InputBinding::Host(std::move(name), dtype, std::move(shape), bytes));
    return r;
  };
  const std::span<const uint8_t> bytes(x.data);
  // int32 has float's size: only the dtype is wrong.
  cases.push_back({"dtype", one("x", DataType::kInt32, x.shape, bytes), {"'x'", "INT32", "FP32"}});
  cases.push_back({"shape", one("x", DataType::kFloat, {2, 3, 5, 4}, bytes), {"'x'", "shape"}});
  cases.push_back({"rank", one("x", DataType::kFloat, {6, 4, 5}, bytes), {"'x'", "rank"}});
  cases.push_back({"size",
                   one("x", DataType::kFloat, x.shape, bytes.first(bytes.size() - 4)),
                   {"'x'", "bytes"}});
  cases.push_back(
      {"unknown input", HostRequest(*model_, data_.inputs), {"unknown input", "'nope'"}});
  cases.back().request.inputs.push_back(
      InputBinding::Host("nope", DataType::kFloat, x.shape, bytes));
  cases.push_back({"missing input", RunRequest{}, {"'x'", "missing"}});
  cases.push_back({"bound twice", HostRequest(*model_, data_.inputs), {"'x'", "twice"}});
  cases.back().request.inputs.push_back(cases.back().request.inputs[0]);
  cases.push_back(
      {"unknown output", HostRequest(*model_, data_.inputs), {"unknown output", "'z'"}});
  cases.back().request.outputs.push_back({"z", OutputLocation::kHost, nullptr});

  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.what);
    const auto result = session_->Run(c.request);
    EXPECT_TRUE(absl::IsInvalidArgument(result.status())) << result.status();
    for (const std::string& part : c.message_has) {
      EXPECT_THAT(std::string(result.status().message()), HasSubstr(part));
    }
  }
  // The session still runs a good request afterwards.
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult ok,
                               session_->Run(HostRequest(*model_, data_.inputs)));
  EXPECT_TRUE(testing::CompareTensors(ok.outputs[0].host, data_.expected[0], {1e-6, 0}).empty());
}

}  // namespace
}  // namespace vkserve
