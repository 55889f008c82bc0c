// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The whole ONNX backend node conformance suite (onnx v1.22.0 data in
// tests/data/onnx-node-tests, 1,765 cases; missing data fails the test). Every case runs on the
// GPU, its graph inputs fed as request inputs exactly as the ONNX runner feeds them (inputs that
// set shapes or bounds are not turned into initializers), and must match the ONNX reference output
// with the ONNX runner's tolerance (rtol 1e-3, atol 1e-7; shape and dtype exact). A case is
// excluded only when it needs what vkserve does not aim to serve (ExclusionReason:
// sequence/optional/map or string values, ai.onnx.ml, training ops, random-number ops,
// float8/int4/float4 types, image decoding), or when the suite's expected output differs from
// ONNX Runtime's and PyTorch's and vkserve follows them (FollowsOnnxRuntime; op cases in
// tests/ops/cases/resize_unpool_sweep_cases.py pin those inputs against onnxruntime); everything
// else, including an op or dtype vkserve does not implement yet, passes, is refused (a Status
// at load, plan or run) or gives a wrong answer. DFT and STFT compare with an absolute tolerance
// at their output's scale (kTransformTolerance). The test allows no wrong answer, asserts a
// floor on the passed count (kPassedFloor: raise it as coverage grows, so a regression fails CI)
// and prints one summary line, then every wrong, refused and excluded case with its reason; the
// same text goes to ${VKSERVE_BINARY_DIR}/onnx_conformance_summary.txt.
//
// VKSERVE_CONFORMANCE_FILTER=REGEX limits the cases (by directory name), and
// VKSERVE_MODEL_SAMPLE (scripts/sanitize.sh's ASan stage, where the whole
// suite is slow) runs every other case in name order; the floor applies
// only to the whole suite.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"
#include "runtime/loaders/onnx_loader.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/testing/gpu_fixture.h"
#include "tests/testing/tensor_compare.h"
#include "tests/testing/test_data.h"

namespace vkserve {
namespace {

namespace fs = std::filesystem;
using testing::GpuTest;

// The passed count this suite must not fall below on lavapipe; raise it with
// every op that adds passes.
constexpr int kPassedFloor = 1542;

// The reasons a case may be excluded, and only these: vkserve does not aim to
// serve these value kinds, domains or ops.
constexpr const char* kSequenceOptionalMap = "sequence/optional/map values";
constexpr const char* kStringValues = "string values";
constexpr const char* kOnnxMl = "ai.onnx.ml";
constexpr const char* kTraining = "training ops";
constexpr const char* kRandom = "random-number ops";
constexpr const char* kLowPrecision = "float8/int4/float4 types";
constexpr const char* kImageDecoding = "image decoding";
constexpr const char* kFollowsOnnxRuntime =
    "the suite's expected output differs from ONNX Runtime and PyTorch; vkserve follows them";

bool IsLowPrecisionType(int elem_type) {
  // FLOAT8E4M3FN 17, FLOAT8E4M3FNUZ 18, FLOAT8E5M2 19, FLOAT8E5M2FNUZ 20,
  // UINT4 21, INT4 22, FLOAT4E2M1 23, FLOAT8E8M0 24.
  return elem_type >= 17 && elem_type <= 24;
}

void NoteElemType(int elem_type, std::set<std::string>& reasons) {
  if (elem_type == onnx::TensorProto::STRING) reasons.insert(kStringValues);
  if (IsLowPrecisionType(elem_type)) reasons.insert(kLowPrecision);
}

void NoteType(const onnx::TypeProto& type, std::set<std::string>& reasons) {
  if (type.has_tensor_type()) {
    NoteElemType(type.tensor_type().elem_type(), reasons);
  } else if (type.has_sequence_type() || type.has_optional_type() || type.has_map_type()) {
    reasons.insert(kSequenceOptionalMap);
  }
}

bool IsSequenceOrOptionalOp(const std::string& op) {
  return op.starts_with("Sequence") || op.starts_with("Optional") || op == "SplitToSequence" ||
         op == "ConcatFromSequence";
}

bool IsRandomOp(const std::string& op) {
  static const std::set<std::string> ops = {"RandomNormal",  "RandomNormalLike",
                                            "RandomUniform", "RandomUniformLike",
                                            "Multinomial",   "Bernoulli"};
  return ops.contains(op);
}

void NoteGraph(const onnx::GraphProto& graph, std::set<std::string>& reasons);

void NoteNode(const onnx::NodeProto& node, std::set<std::string>& reasons) {
  const std::string& domain = node.domain();
  if (domain == "ai.onnx.ml") reasons.insert(kOnnxMl);
  if (domain == "ai.onnx.preview.training") reasons.insert(kTraining);
  if (domain.empty() || domain == "ai.onnx") {
    if (IsSequenceOrOptionalOp(node.op_type())) reasons.insert(kSequenceOptionalMap);
    if (IsRandomOp(node.op_type())) reasons.insert(kRandom);
    if (node.op_type() == "ImageDecoder") reasons.insert(kImageDecoding);
  }
  for (const onnx::AttributeProto& a : node.attribute()) {
    // Types a node produces: Cast's `to`, QuantizeLinear's `output_dtype`, ...
    if (a.type() == onnx::AttributeProto::INT &&
        (a.name() == "to" || a.name() == "output_dtype" || a.name() == "dtype")) {
      NoteElemType(static_cast<int>(a.i()), reasons);
    }
    if (a.has_t()) NoteElemType(a.t().data_type(), reasons);
    if (a.has_g()) NoteGraph(a.g(), reasons);
    for (const onnx::GraphProto& g : a.graphs()) NoteGraph(g, reasons);
  }
}

void NoteGraph(const onnx::GraphProto& graph, std::set<std::string>& reasons) {
  for (const auto* list : {&graph.input(), &graph.output(), &graph.value_info()}) {
    for (const onnx::ValueInfoProto& v : *list) NoteType(v.type(), reasons);
  }
  for (const onnx::TensorProto& t : graph.initializer()) NoteElemType(t.data_type(), reasons);
  for (const onnx::NodeProto& node : graph.node()) NoteNode(node, reasons);
}

// Why `model` is excluded ("a, b" when several reasons hold), or "" when it
// runs.
std::string ExclusionReason(const onnx::ModelProto& model) {
  std::set<std::string> reasons;
  NoteGraph(model.graph(), reasons);
  for (const onnx::FunctionProto& f : model.functions()) {
    for (const onnx::NodeProto& node : f.node()) NoteNode(node, reasons);
  }
  std::string joined;
  for (const std::string& r : reasons) joined += (joined.empty() ? "" : ", ") + r;
  return joined;
}

constexpr testing::Tolerance kOnnxTolerance{1e-3, 1e-7};
// DFT and STFT: each output element sums every input of its axis, so its
// rounding follows the output's scale, not its own value: an element that is
// exactly 0 comes out as the reference's float32 noise (1.9e-7 in
// test_dft_inverse, whose outputs reach 54) or as vkserve's (3e-15).
constexpr testing::Tolerance kTransformTolerance{1e-3, 1e-5};

bool HasTransform(const onnx::ModelProto& model) {
  for (const onnx::NodeProto& node : model.graph().node()) {
    if (node.op_type() == "DFT" || node.op_type() == "STFT") return true;
  }
  return false;
}

// Cases whose expected output differs from what ONNX Runtime and PyTorch
// compute, where vkserve follows them (what exported models need): excluded as
// kFollowsOnnxRuntime, the ONNX issue named. The op cases sweep_suite_* run
// these models and inputs against onnxruntime.
const std::map<std::string, std::string>& FollowsOnnxRuntime() {
  static const std::map<std::string, std::string> cases = {
      // Downsampling align_corners with a fractional scale * size: the ONNX
      // reference divides by (scale * size - 1), onnxruntime and PyTorch by
      // (output size - 1) (onnx/onnx#2462); onnxruntime's own backend test
      // filters skip both as "results mismatch with onnx tests".
      {"test_resize_downsample_scales_cubic_align_corners", "onnx/onnx#2462"},
      {"test_resize_downsample_scales_linear_align_corners", "onnx/onnx#2462"},
      // MaxUnpool with an output_shape larger than the inferred one: the
      // ONNX reference scatters into the inferred shape and pads it at the
      // end of each axis; onnxruntime (and PyTorch) scatter the flat indices
      // straight into output_shape. onnxruntime's backend test filters skip
      // the case ("results mismatch"; onnx/onnx#2398).
      {"test_maxunpool_export_with_output_shape", "onnx/onnx#2398"},
  };
  return cases;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string OneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

// A case passes, gives a wrong answer (outputs that differ from the
// suite's), or is refused (an error at load, plan or run: a Status naming
// the node and why).
struct Outcome {
  enum class Kind { kPassed, kWrong, kRefused } kind = Kind::kPassed;
  std::string reason;
};

Outcome Refused(const std::string& why) { return {Outcome::Kind::kRefused, OneLine(why)}; }
Outcome Wrong(const std::string& why) { return {Outcome::Kind::kWrong, OneLine(why)}; }

class OnnxConformanceTest : public GpuTest {
 protected:
  // Runs one case through Model::Load, the public entry point, with every
  // graph input bound as a request input.
  Outcome RunCase(const fs::path& dir, testing::Tolerance tolerance) {
    const fs::path data = dir / "test_data_set_0";
    const GpuContext gpu{device_.get(), allocator_.get(), pipelines_.get()};
    auto model = Model::Load((dir / "model.onnx").string(), gpu);
    if (!model.ok()) return Refused("load: " + model.status().ToString());
    const std::vector<ValueInfo>& declared = (*model)->inputs();
    std::vector<HostTensor> inputs;
    for (size_t i = 0; i < declared.size(); ++i) {
      auto t = ReadTensorProtoFile((data / ("input_" + std::to_string(i) + ".pb")).string());
      if (!t.ok()) return Refused("input " + std::to_string(i) + ": " + t.status().ToString());
      inputs.push_back(*std::move(t));
    }
    if (fs::exists(data / ("input_" + std::to_string(declared.size()) + ".pb"))) {
      return Wrong("the test data has more inputs than the model's " +
                   std::to_string(declared.size()));
    }
    std::vector<std::vector<int64_t>> shapes;
    InputValues values(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      shapes.push_back(inputs[i].shape);
      // As Session::Run reads them from a request: inputs that set shapes.
      if ((*model)->is_value_input(i)) values[i] = std::make_shared<const HostTensor>(inputs[i]);
    }
    // A model cut at a sync point (NonZero, ...) plans its parts per run.
    if ((*model)->sync_split() == nullptr) {
      auto plan = (*model)->GetPlan(shapes, values);
      if (!plan.ok()) return Refused("plan: " + plan.status().ToString());
    }
    auto session = Session::Create(*model);
    if (!session.ok()) return Refused("session: " + session.status().ToString());
    RunRequest request;
    for (size_t i = 0; i < declared.size(); ++i) {
      request.inputs.push_back(InputBinding::Host(declared[i].name, inputs[i]));
    }
    auto result = (*session)->Run(request);
    if (!result.ok()) return Refused("run: " + result.status().ToString());
    size_t expected_outputs = 0;
    while (fs::exists(data / ("output_" + std::to_string(expected_outputs) + ".pb"))) {
      ++expected_outputs;
    }
    if (result->outputs.size() != expected_outputs) {
      return Wrong("vkserve returned " + std::to_string(result->outputs.size()) +
                   " outputs, the test data has " + std::to_string(expected_outputs));
    }
    std::string problems;
    for (size_t o = 0; o < expected_outputs; ++o) {
      const RunOutput& out = result->outputs[o];
      auto want = ReadTensorProtoFile((data / ("output_" + std::to_string(o) + ".pb")).string());
      if (!want.ok()) {
        problems += "; output '" + out.name + "': " + want.status().ToString();
        continue;
      }
      const std::string diff = testing::CompareTensors(out.host, *want, tolerance);
      if (!diff.empty()) problems += "; output '" + out.name + "': " + diff;
    }
    if (!problems.empty()) return Wrong(problems.substr(2));
    return {};
  }

  // Runs `dir`'s case with the validation layer watching: any message fails it.
  Outcome RunWatched(const fs::path& dir, testing::Tolerance tolerance) {
    const int messages_before = instance_->validation_message_count();
    Outcome outcome = RunCase(dir, tolerance);
    const int messages = instance_->validation_message_count() - messages_before;
    if (messages > 0) {
      const auto& recent = instance_->recent_validation_messages();
      outcome = Wrong(std::to_string(messages) + " validation layer message(s) (last: " +
                      OneLine(recent.empty() ? std::string() : recent.back()) + ")" +
                      (outcome.reason.empty() ? "" : "; " + outcome.reason));
    }
    return outcome;
  }
};

std::vector<fs::path> CaseDirs(const fs::path& root, const std::regex& filter) {
  std::vector<fs::path> dirs;
  for (const fs::directory_entry& e : fs::directory_iterator(root)) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && name.starts_with("test_") && std::regex_search(name, filter)) {
      dirs.push_back(e.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

TEST_F(OnnxConformanceTest, NodeSuitePassesAtLeastTheFloor) {
  const fs::path root = testing::OnnxNodeTestsDir();
  ASSERT_TRUE(fs::is_directory(root)) << "missing the ONNX node cases at " << root;
  const char* filter_env = std::getenv("VKSERVE_CONFORMANCE_FILTER");
  const bool filtered = filter_env != nullptr && *filter_env != '\0';
  std::vector<fs::path> dirs = CaseDirs(root, std::regex(filtered ? filter_env : ""));
  const bool sampled = std::getenv("VKSERVE_MODEL_SAMPLE") != nullptr;
  if (sampled) {
    std::vector<fs::path> every_other;
    for (size_t i = 0; i < dirs.size(); i += 2) every_other.push_back(dirs[i]);
    dirs = std::move(every_other);
  }

  int passed = 0;
  std::vector<std::string> wrong;
  std::vector<std::string> refused;
  std::vector<std::string> excluded;
  std::map<std::string, int> excluded_by_reason;
  for (const fs::path& dir : dirs) {
    const std::string name = dir.filename().string();
    onnx::ModelProto proto;
    if (!proto.ParseFromString(ReadFile(dir / "model.onnx"))) {
      refused.push_back(name + ": model.onnx does not parse");
      continue;
    }
    if (const std::string why = ExclusionReason(proto); !why.empty()) {
      excluded.push_back(name + ": " + why);
      ++excluded_by_reason[why];
      continue;
    }
    if (auto it = FollowsOnnxRuntime().find(name); it != FollowsOnnxRuntime().end()) {
      excluded.push_back(name + ": " + kFollowsOnnxRuntime + " (" + it->second + ")");
      ++excluded_by_reason[kFollowsOnnxRuntime];
      continue;
    }
    const Outcome outcome =
        RunWatched(dir, HasTransform(proto) ? kTransformTolerance : kOnnxTolerance);
    if (outcome.kind == Outcome::Kind::kPassed) {
      ++passed;
    } else if (outcome.kind == Outcome::Kind::kWrong) {
      wrong.push_back(name + ": " + outcome.reason);
    } else {
      refused.push_back(name + ": " + outcome.reason);
    }
  }

  const size_t total = dirs.size();
  const size_t ran = total - excluded.size();
  std::ostringstream summary;
  summary << "ONNX conformance: " << total << " cases under " << root.string() << ", " << ran
          << " ran, " << passed << " passed (" << (total == 0 ? 0 : 100 * passed / total)
          << "% of all, " << (ran == 0 ? 0 : 100 * passed / ran) << "% of those run), "
          << wrong.size() << " wrong, " << refused.size() << " refused, " << excluded.size()
          << " excluded (";
  bool first = true;
  for (const auto& [why, count] : excluded_by_reason) {
    summary << (first ? "" : "; ") << why << ": " << count;
    first = false;
  }
  summary << ")\n";
  summary << "Wrong (" << wrong.size() << "):\n";
  for (const std::string& w : wrong) summary << "  " << w << "\n";
  summary << "Refused (" << refused.size() << "):\n";
  for (const std::string& r : refused) summary << "  " << r << "\n";
  summary << "Excluded (" << excluded.size() << "):\n";
  for (const std::string& e : excluded) summary << "  " << e << "\n";
  std::cout << summary.str();
  const char* binary_dir = std::getenv("VKSERVE_BINARY_DIR");
  const fs::path out =
      fs::path(binary_dir != nullptr ? binary_dir : ".") / "onnx_conformance_summary.txt";
  std::ofstream(out) << summary.str();
  EXPECT_GT(total, 0u) << "no cases under " << root;
  // A wrong answer is worse than a refusal: none is allowed.
  EXPECT_TRUE(wrong.empty()) << wrong.size() << " node-suite cases give wrong answers; see " << out;
  if (!filtered && !sampled) {
    EXPECT_GE(passed, kPassedFloor) << "fewer node-suite cases pass than before; see " << out;
  }
}

}  // namespace
}  // namespace vkserve
