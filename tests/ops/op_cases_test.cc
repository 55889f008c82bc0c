// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The op cases: one test per case directory under $VKSERVE_OP_CASES_DIR
// (written by tests/ops/gen_cases.py, references by tests/reference/
// ort_batch.js; tests/ops/run_cases.sh does all three). Each case's model runs
// in a fresh Session with every output on the host and must match
// onnxruntime's output (dtype and shape exactly, values within the case's
// rtol/atol); a second run must replay the recorded commands and reproduce
// the first run bit for bit.
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "runtime/loaders/npy.h"
#include "runtime/model.h"
#include "runtime/ops/nn/conv_layout.h"
#include "runtime/passes/fusion.h"
#include "runtime/session.h"
#include "tests/testing/gpu_fixture.h"
#include "tests/testing/tensor_compare.h"

namespace vkserve {
namespace {

namespace fs = std::filesystem;
using testing::GpuTest;

std::string CasesDir() {
  const char* dir = std::getenv("VKSERVE_OP_CASES_DIR");
  return dir != nullptr ? dir : "";
}

// Case directories (those holding meta.json), sorted; read once at startup.
std::vector<std::string> ListCases() {
  std::vector<std::string> names;
  const std::string dir = CasesDir();
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory() && fs::exists(e.path() / "meta.json")) {
      names.push_back(e.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// meta.json, as gen_cases.py writes it.
struct CaseMeta {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  testing::Tolerance tol;
  // Optional: the model's precision, a device feature the case needs
  // ("cooperative_matrix": skipped elsewhere), and the smallest largest
  // difference from the reference the case demands (an FP16 case whose
  // output matched an fp64 reference to fp32 accuracy did not round).
  Precision precision = Precision::kFp32;
  Accumulation accumulation = Accumulation::kFp32;  // ModelOptions::accumulation
  std::string requires_feature;
  double min_max_error = 0;
  // Optional: a fused node the loaded graph must hold, by its inspect name
  // (FusedOpName, e.g. "MatMul+Div+Add+Softmax+MatMul=Attention").
  std::string fused_op;
  // Optional: an op type the loaded graph must no longer hold (a rewrite
  // absorbed every such node, e.g. "Transpose").
  std::string absent_op;
  // Optional: at most this many nodes of each op type may run a kernel at
  // the case's shapes (folded, aliased and unread nodes do not count).
  std::map<std::string, int> dispatches;
  // Optional: the start of the kernel description (Kernel::Describe, as
  // `vkserve inspect` shows it) some node must have at the case's shapes,
  // e.g. "unfused": proof that a pinned or chosen path ran.
  std::string kernel;
  // Optional: ModelOptions::conv_layout, and how many Conv nodes of the
  // loaded graph must run channels-last (runtime/ops/nn/conv_layout.h).
  ConvLayout conv_layout = ConvLayout::kNchw;
  int nhwc_convs = 0;
};

absl::StatusOr<CaseMeta> ReadMeta(const fs::path& path) {
  google::protobuf::Struct json;
  if (!google::protobuf::util::JsonStringToMessage(ReadFile(path), &json).ok()) {
    return absl::InvalidArgumentError(path.string() + ": not valid JSON");
  }
  const auto& f = json.fields();
  for (const char* key : {"inputs", "outputs", "rtol", "atol"}) {
    if (!f.contains(key)) return absl::InvalidArgumentError(path.string() + ": no '" + key + "'");
  }
  CaseMeta meta;
  for (const auto& v : f.at("inputs").list_value().values())
    meta.inputs.push_back(v.string_value());
  for (const auto& v : f.at("outputs").list_value().values()) {
    meta.outputs.push_back(v.string_value());
  }
  meta.tol.rtol = f.at("rtol").number_value();
  meta.tol.atol = f.at("atol").number_value();
  if (f.contains("precision")) {
    const std::string& p = f.at("precision").string_value();
    if (p != "FP32" && p != "FP16") return absl::InvalidArgumentError("bad precision " + p);
    meta.precision = p == "FP16" ? Precision::kFp16 : Precision::kFp32;
  }
  if (f.contains("accumulation")) {
    const std::string& a = f.at("accumulation").string_value();
    if (a != "FP32" && a != "FP16") return absl::InvalidArgumentError("bad accumulation " + a);
    meta.accumulation = a == "FP16" ? Accumulation::kFp16 : Accumulation::kFp32;
  }
  if (f.contains("requires")) meta.requires_feature = f.at("requires").string_value();
  if (f.contains("min_max_error")) meta.min_max_error = f.at("min_max_error").number_value();
  if (f.contains("fused_op")) meta.fused_op = f.at("fused_op").string_value();
  if (f.contains("absent_op")) meta.absent_op = f.at("absent_op").string_value();
  if (f.contains("dispatches")) {
    for (const auto& [op, n] : f.at("dispatches").struct_value().fields())
      meta.dispatches[op] = static_cast<int>(n.number_value());
  }
  if (f.contains("kernel")) meta.kernel = f.at("kernel").string_value();
  if (f.contains("conv_layout")) {
    const std::string& l = f.at("conv_layout").string_value();
    if (l != "NCHW" && l != "NHWC") return absl::InvalidArgumentError("bad conv_layout " + l);
    meta.conv_layout = l == "NHWC" ? ConvLayout::kNhwc : ConvLayout::kNchw;
  }
  if (f.contains("nhwc_convs")) {
    meta.nhwc_convs = static_cast<int>(f.at("nhwc_convs").number_value());
  }
  return meta;
}

// Holds one Vulkan instance for the whole run, so that the loader does not
// unload and reload the driver between the hundreds of per-case instances:
// the NVIDIA driver's libraries use static TLS, and after some 30 load/unload
// cycles glibc has none left ("cannot allocate memory in static TLS block").
class KeepDriverLoaded : public ::testing::Environment {
 public:
  void SetUp() override {
    auto instance = gpu::Instance::Create();
    if (instance.ok()) instance_ = std::move(instance).value();
  }
  void TearDown() override { instance_.reset(); }

 private:
  std::unique_ptr<gpu::Instance> instance_;
};
[[maybe_unused]] ::testing::Environment* const kKeepDriverLoaded =
    ::testing::AddGlobalTestEnvironment(new KeepDriverLoaded);

// The cases share one device, allocator and pipeline cache, handed from case
// to case: most cases compile pipelines an earlier case compiled already, and
// on lavapipe compiling is most of a case's time. A case that fails, or the
// 200th since the last fresh set (bounding what the cache holds), leaves
// the next case a fresh set.
class OpCaseTest : public GpuTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    if (kept_.device != nullptr) {
      SetUpGpuFrom(std::move(kept_));
    } else {
      SetUpGpu(/*push_descriptors=*/true);
      cases_on_set_ = 0;
    }
  }
  void TearDown() override {
    instance_of_kept_ = instance_;
    if (!HasFailure() && ++cases_on_set_ < kCasesPerSet) kept_ = ReleaseGpu();
    GpuTest::TearDown();
  }
  // The last set goes here, checked as each test's own set is: whatever the
  // validation layer says while the device is destroyed (objects left
  // alive, say) fails the suite.
  static void TearDownTestSuite() {
    if (kept_.device == nullptr) return;
    const int before = instance_of_kept_->validation_message_count();
    { GpuObjects last = std::move(kept_); }  // pipelines, allocator, then device
    if (instance_of_kept_->validation_message_count() != before) {
      std::string all;
      for (const auto& m : instance_of_kept_->recent_validation_messages()) all += m + "\n";
      ADD_FAILURE() << "validation layer messages while destroying the shared device:\n" << all;
    }
  }

 private:
  static constexpr int kCasesPerSet = 200;
  static inline GpuObjects kept_;
  static inline int cases_on_set_ = 0;
  static inline gpu::Instance* instance_of_kept_ = nullptr;
};

// A case's reference outputs exist and onnxruntime could run it.
void CheckReferencesExist(const fs::path& dir, const CaseMeta& meta) {
  if (fs::exists(dir / "expected" / "error.txt")) {
    FAIL() << "onnxruntime could not run this case, so it is not a valid test:\n"
           << ReadFile(dir / "expected" / "error.txt");
  }
  for (size_t o = 0; o < meta.outputs.size(); ++o) {
    ASSERT_TRUE(fs::exists(dir / "expected" / (std::to_string(o) + ".npy")))
        << "no reference output " << o << " in " << dir << " (run tests/reference/ort_batch.js)";
  }
}

// The case's input tensors and a request viewing them (so `tensors` must
// outlive `request` and not change).
struct CaseInputs {
  std::vector<HostTensor> tensors;
  RunRequest request;
};

void ReadInputs(const fs::path& dir, const CaseMeta& meta, CaseInputs* in) {
  for (size_t i = 0; i < meta.inputs.size(); ++i) {
    VKSERVE_ASSERT_OK_AND_ASSIGN(HostTensor t,
                                 ReadNpy((dir / "inputs" / (std::to_string(i) + ".npy")).string()));
    in->tensors.push_back(std::move(t));
  }
  for (size_t i = 0; i < meta.inputs.size(); ++i) {
    in->request.inputs.push_back(InputBinding::Host(meta.inputs[i], in->tensors[i]));
  }
}

// What the case asks of the plan: a node fused as `fused_op`, no node of
// type `absent_op`, at most `dispatches` kernels per op type, a node running
// a kernel described as `kernel`.
// check_kernel: false where the case's kernel is the choice of a device with a
// feature this one lacks.
void CheckPlan(const Model& model, const CaseMeta& meta, const CaseInputs& in, bool check_kernel) {
  const std::vector<Node>& nodes = model.graph().nodes;
  if (!meta.fused_op.empty()) {
    EXPECT_TRUE(std::any_of(nodes.begin(), nodes.end(),
                            [&](const Node& n) { return FusedOpName(n) == meta.fused_op; }))
        << "no node fused as " << meta.fused_op;
  }
  EXPECT_EQ(std::count_if(nodes.begin(), nodes.end(),
                          [](const Node& n) {
                            return n.op_type == "Conv" &&
                                   n.GetString(kConvLayoutAttr, "") == kConvLayoutNhwc;
                          }),
            meta.nhwc_convs)
      << "Conv nodes marked " << kConvLayoutNhwc;
  if (!meta.absent_op.empty()) {
    EXPECT_TRUE(std::none_of(nodes.begin(), nodes.end(),
                             [&](const Node& n) { return n.op_type == meta.absent_op; }))
        << "a " << meta.absent_op << " node is left";
  }
  if (!meta.dispatches.empty()) {
    std::vector<std::vector<int64_t>> shapes;
    for (const HostTensor& t : in.tensors) shapes.push_back(t.shape);
    VKSERVE_ASSERT_OK_AND_ASSIGN(const ModelReport report, model.Inspect(&shapes));
    for (const auto& [op_type, most] : meta.dispatches) {
      // Nodes without a dispatch say so in their device ("gpu (alias: no dispatch)").
      const std::string& op = op_type;  // a structured binding cannot be captured in C++20
      const auto dispatched =
          std::count_if(report.nodes.begin(), report.nodes.end(),
                        [&](const NodeReport& n) { return n.op_type == op && n.device == "gpu"; });
      EXPECT_LE(dispatched, most) << op << " nodes running a kernel";
    }
  }
  if (check_kernel && !meta.kernel.empty()) {
    std::vector<std::vector<int64_t>> shapes;
    for (const HostTensor& t : in.tensors) shapes.push_back(t.shape);
    VKSERVE_ASSERT_OK_AND_ASSIGN(const ModelReport report, model.Inspect(&shapes));
    EXPECT_TRUE(
        std::any_of(report.nodes.begin(), report.nodes.end(),
                    [&](const NodeReport& n) { return n.kernel.rfind(meta.kernel, 0) == 0; }))
        << "no node runs a kernel described as " << meta.kernel << "...";
  }
}

// Largest |a - b| over two float tensors of the same size.
double MaxAbsError(const HostTensor& a, const HostTensor& b) {
  double max_error = 0;
  for (size_t i = 0; i < a.data.size() / 4; ++i) {
    float x = 0, y = 0;
    std::memcpy(&x, a.data.data() + 4 * i, 4);
    std::memcpy(&y, b.data.data() + 4 * i, 4);
    max_error = std::max(max_error, std::fabs(static_cast<double>(x) - y));
  }
  return max_error;
}

// A run's outputs against the reference within the case's tolerance; with
// `min_max_error`, also far enough from an fp64 reference to prove rounding.
void CheckAgainstReference(const RunResult& run, const fs::path& dir, const CaseMeta& meta) {
  ASSERT_EQ(run.outputs.size(), meta.outputs.size());
  for (size_t o = 0; o < meta.outputs.size(); ++o) {
    const RunOutput& out = run.outputs[o];
    SCOPED_TRACE("output " + std::to_string(o) + " '" + meta.outputs[o] + "'");
    EXPECT_EQ(out.name, meta.outputs[o]);
    VKSERVE_ASSERT_OK_AND_ASSIGN(
        const HostTensor want, ReadNpy((dir / "expected" / (std::to_string(o) + ".npy")).string()));
    EXPECT_EQ(out.dtype, out.host.dtype);
    EXPECT_EQ(out.shape, out.host.shape);
    const std::string diff = testing::CompareTensors(out.host, want, meta.tol);
    EXPECT_TRUE(diff.empty()) << "vkserve vs the reference: " << diff;
    if (meta.min_max_error > 0) {
      ASSERT_EQ(want.dtype, DataType::kFloat);
      ASSERT_EQ(out.host.data.size(), want.data.size());
      EXPECT_GE(MaxAbsError(out.host, want), meta.min_max_error)
          << "closer to the fp64 reference than the requested precision allows: not rounded?";
    }
  }
}

// The second run replays the first's recording and gives the same bits.
void CheckReplay(const Session& session, const RunResult& first, const RunResult& second,
                 const CaseMeta& meta) {
  EXPECT_FALSE(first.timing.replayed) << "the first run of a new session cannot replay";
  EXPECT_TRUE(second.timing.replayed) << "the second run with the same shapes must replay";
  // One recording, or one per part of a model cut at sync points.
  EXPECT_EQ(second.timing.sync_points, first.timing.sync_points);
  EXPECT_EQ(session.recording_count(), 1u + static_cast<size_t>(first.timing.sync_points));
  ASSERT_EQ(second.outputs.size(), first.outputs.size());
  for (size_t o = 0; o < first.outputs.size(); ++o) {
    const std::string diff = testing::CompareBitwise(second.outputs[o].host, first.outputs[o].host);
    EXPECT_TRUE(diff.empty()) << "output " << o << " '" << meta.outputs[o]
                              << "': replayed run vs first run: " << diff;
  }
}

TEST_P(OpCaseTest, MatchesOnnxRuntime) {
  const fs::path dir = fs::path(CasesDir()) / GetParam();
  VKSERVE_ASSERT_OK_AND_ASSIGN(const CaseMeta meta, ReadMeta(dir / "meta.json"));
  ASSERT_NO_FATAL_FAILURE(CheckReferencesExist(dir, meta));
  ASSERT_TRUE(meta.requires_feature.empty() || meta.requires_feature == "cooperative_matrix")
      << "unknown requirement " << meta.requires_feature;
  // A case pinning a tensor-core tile, on a device without fp16 cooperative
  // matrices: the tile runs in its scalar emulation where that fits the
  // device (and is compared as usual), else it is refused with a Status
  // naming the tile, never run some other way.
  const bool without_coopmat =
      meta.requires_feature == "cooperative_matrix" && !device_->info().cooperative_matrix_enabled;
  auto expect_tile_refused = [](const absl::Status& status) {
    EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
    EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("tensor-core tile")) << status;
  };

  const GpuContext gpu{device_.get(), allocator_.get(), pipelines_.get()};
  ModelOptions options;
  options.precision = meta.precision;
  options.accumulation = meta.accumulation;
  options.conv_layout = meta.conv_layout;
  absl::StatusOr<std::shared_ptr<Model>> loaded =
      Model::Load((dir / "model.onnx").string(), gpu, options);
  if (without_coopmat && !loaded.ok()) return expect_tile_refused(loaded.status());
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<Model> model, std::move(loaded));
  CaseInputs in;
  ASSERT_NO_FATAL_FAILURE(ReadInputs(dir, meta, &in));
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
  absl::StatusOr<RunResult> ran = session->Run(in.request);
  if (without_coopmat && !ran.ok()) return expect_tile_refused(ran.status());
  ASSERT_NO_FATAL_FAILURE(CheckPlan(*model, meta, in, /*check_kernel=*/!without_coopmat));
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult first, std::move(ran));
  ASSERT_NO_FATAL_FAILURE(CheckAgainstReference(first, dir, meta));
  VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult second, session->Run(in.request));
  CheckReplay(*session, first, second, meta);
}

INSTANTIATE_TEST_SUITE_P(Cases, OpCaseTest, ::testing::ValuesIn(ListCases()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;  // gen_cases.py allows [A-Za-z0-9_]+ only
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpCaseTest);

TEST(OpCases, DirectoryHasCases) {
  if (CasesDir().empty()) {
    GTEST_SKIP() << "VKSERVE_OP_CASES_DIR is not set; tests/ops/run_cases.sh BUILD_DIR sets it";
  }
  EXPECT_FALSE(ListCases().empty()) << "no case directories (with meta.json) under " << CasesDir();
}

}  // namespace
}  // namespace vkserve
