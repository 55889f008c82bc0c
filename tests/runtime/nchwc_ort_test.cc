// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ONNX Runtime's NCHWc layout over channel counts that are no multiple of its
// block size: the models of tests/runtime/nchwc_ort_cases.py (depthwise,
// grouped and first-layer convolutions with FusedConv activations, pools,
// Upsample, ReorderInput/ReorderOutput with and without channels_last,
// channel Concats, Add/Sum of blocked values, BatchNormalization as a 1x1
// depthwise convolution, 3 to 130 channels) are converted by onnxruntime-node
// at graph optimization level 'all'. Each `.ort` must hold the nchwc ops its
// case names (so the conversion did block what the case is about), load,
// place every node on the GPU and match onnxruntime-node running the `.onnx`
// within the whole-model tolerance.
//
// The cases, references (tests/reference/ort_batch.js) and conversions
// (tests/reference/ort_run.js) are made once per test binary in a temporary
// directory. ONNX Runtime blocks only on x86 with AVX2 or AVX-512 (MLAS block
// size 8 or 16): elsewhere the conversions hold no nchwc ops and the test
// fails saying so, rather than passing on files that test nothing.
#include <gmock/gmock.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "runtime/loaders/ort_loader.h"
#include "runtime/lowering/nchwc/nchwc_layout.h"
#include "runtime/model.h"
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
using testing::HostRequest;
using testing::ModelTolerance;
using testing::PythonCommand;
using testing::ReadCaseIn;
using testing::ReferenceCommand;

struct Cases {
  fs::path dir;
  std::vector<std::string> names;
  std::string error;  // why they could not be made, if so
};

// Generates the cases, their references and their level-'all' conversions.
const Cases& GetCases() {
  static const Cases* cases = [] {
    auto* c = new Cases;
    c->dir = fs::temp_directory_path() / ("vkserve_nchwc_ort_test_" + std::to_string(getpid()));
    fs::remove_all(c->dir);
    fs::create_directories(c->dir);
    std::atexit([] { fs::remove_all(GetCases().dir); });
    const std::string make = PythonCommand("tests/runtime/nchwc_ort_cases.py", {c->dir.string()});
    const std::string reference = ReferenceCommand(c->dir) + " >/dev/null";
    for (const std::string& command : {make, reference}) {
      if (std::system(command.c_str()) != 0) {
        c->error = "failed: " + command;
        return c;
      }
    }
    for (const fs::directory_entry& e : fs::directory_iterator(c->dir)) {
      if (!fs::exists(e.path() / "model.onnx")) continue;
      c->names.push_back(e.path().filename().string());
      const std::string convert =
          ConvertToOrtCommand((e.path() / "model.onnx").string(),
                              (e.path() / "model_all.ort").string(), "all") +
          " >/dev/null 2>&1";
      if (std::system(convert.c_str()) != 0) std::cerr << "failed: " << convert << "\n";
    }
    std::sort(c->names.begin(), c->names.end());
    return c;
  }();
  return *cases;
}

// The "nchwc_ops" list of a case's meta.json.
std::set<std::string> ExpectedNchwcOps(const fs::path& meta_path) {
  const std::string meta = testing::ReadFile(meta_path);
  std::set<std::string> ops;
  const size_t key = meta.find("\"nchwc_ops\"");
  if (key == std::string::npos) return ops;
  const size_t open = meta.find('[', key), close = meta.find(']', key);
  for (size_t q = meta.find('"', open); q < close; q = meta.find('"', q)) {
    const size_t end = meta.find('"', q + 1);
    ops.insert(meta.substr(q + 1, end - q - 1));
    q = end + 1;
  }
  return ops;
}

class NchwcOrtTest : public GpuTest {
 protected:
  GpuContext gpu() { return {device_.get(), allocator_.get(), pipelines_.get()}; }

  void CheckCase(const std::string& name) {
    const fs::path dir = GetCases().dir / name;
    const fs::path ort = dir / "model_all.ort";
    ASSERT_TRUE(fs::exists(ort)) << "onnxruntime-node did not convert " << name;

    // The conversion blocked what the case is about.
    VKSERVE_ASSERT_OK_AND_ASSIGN(const Graph stored, LoadOrtModel(ort.string()));
    std::set<std::string> nchwc_ops;
    for (const Node& n : stored.nodes) {
      if (n.domain == kNchwcDomain) nchwc_ops.insert(n.op_type);
    }
    const std::set<std::string> expected = ExpectedNchwcOps(dir / "meta.json");
    ASSERT_FALSE(expected.empty()) << "meta.json names no nchwc ops";
    for (const std::string& op : expected) {
      EXPECT_TRUE(nchwc_ops.contains(op))
          << "the level 'all' file holds no nchwc " << op << " (it holds "
          << absl::StrJoin(nchwc_ops, ", ") << "; host NCHWc block size " << HostNchwcBlockSize()
          << ")";
    }

    auto loaded = Model::Load(ort.string(), gpu());
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const std::shared_ptr<Model> model = *loaded;
    VKSERVE_ASSERT_OK_AND_ASSIGN(const CaseData data,
                                 ReadCaseIn(GetCases().dir, name, model->outputs().size()));
    ASSERT_EQ(data.inputs.size(), model->inputs().size());
    std::vector<std::vector<int64_t>> shapes;
    for (const HostTensor& t : data.inputs) shapes.push_back(t.shape);
    VKSERVE_ASSERT_OK_AND_ASSIGN(const ModelReport report, model->Inspect(&shapes));
    EXPECT_EQ(report.cpu_nodes, 0);
    for (const NodeReport& n : report.nodes) {
      EXPECT_TRUE(n.device.starts_with("gpu"))
          << n.name << " (" << n.op_type << ") runs on " << n.device;
    }

    VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
    VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult result,
                                 session->Run(HostRequest(*model, data.inputs)));
    ASSERT_EQ(result.outputs.size(), data.expected.size());
    for (size_t o = 0; o < result.outputs.size(); ++o) {
      const HostTensor& want = data.expected[o];
      const HostTensor& got = result.outputs[o].host;
      std::cout << name << ": max |diff| " << testing::MaxAbsDiff(got, want) << " of max|want| "
                << testing::MaxAbsFinite(want) << "\n";
      const std::string diff = testing::CompareTensors(got, want, ModelTolerance(want));
      EXPECT_TRUE(diff.empty()) << "output '" << result.outputs[o].name
                                << "' vs onnxruntime on the .onnx: " << diff;
    }
  }
};

TEST_F(NchwcOrtTest, EveryCaseLoadsRunsOnTheGpuAndMatchesOnnxRuntime) {
  ASSERT_TRUE(GetCases().error.empty()) << GetCases().error;
  ASSERT_GE(GetCases().names.size(), 20u) << "nchwc_ort_cases.py wrote too few cases";
  for (const std::string& name : GetCases().names) {
    SCOPED_TRACE(name);
    CheckCase(name);
  }
}

}  // namespace
}  // namespace vkserve
