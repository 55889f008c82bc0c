// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Fusion inside control-flow subgraphs (runtime/passes/pipeline.h): an If
// whose branches hold GELU and SiLU as exporters write them (and read outer
// values by name) has them fused in each branch at load, and the model's
// output for either condition still matches onnxruntime-node's on the same
// model. subgraph_fusion_cases.py writes the cases and ort_batch.js their
// references, once per test binary, into a temporary directory.
#include <gmock/gmock.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "runtime/model.h"
#include "runtime/passes/fusion.h"
#include "runtime/session.h"
#include "tests/testing/gpu_fixture.h"
#include "tests/testing/model_cases.h"
#include "tests/testing/tensor_compare.h"
#include "tests/testing/test_data.h"

namespace vkserve {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using testing::GpuTest;

struct Cases {
  fs::path dir;
  std::string error;
};

const Cases& GetCases() {
  static const Cases* cases = [] {
    auto* c = new Cases;
    c->dir = fs::temp_directory_path() / ("vkserve_subgraph_fusion_" + std::to_string(getpid()));
    fs::remove_all(c->dir);
    const std::string make =
        testing::PythonCommand("tests/runtime/subgraph_fusion_cases.py", {c->dir.string()}) +
        " && " + testing::ReferenceCommand(c->dir) + " >/dev/null";
    if (std::system(make.c_str()) != 0) c->error = "failed: " + make;
    std::atexit([] { fs::remove_all(GetCases().dir); });
    return c;
  }();
  return *cases;
}

// The fused op names (FusedOpName) of branch `name` of the If node.
std::vector<std::string> BranchOps(const Model& model, const char* name) {
  std::vector<std::string> ops;
  for (const Node& node : model.graph().nodes) {
    if (node.op_type != "If") continue;
    for (const Node& inner : node.attributes.at(name).graphs.at(0)->nodes) {
      ops.push_back(FusedOpName(inner));
    }
  }
  return ops;
}

class SubgraphFusionTest : public GpuTest {
 protected:
  void ExpectMatches(const std::shared_ptr<Model>& model, const std::string& name) {
    VKSERVE_ASSERT_OK_AND_ASSIGN(const testing::CaseData data,
                                 testing::ReadCaseIn(GetCases().dir, name, 1));
    VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
    VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult result,
                                 session->Run(testing::HostRequest(*model, data.inputs)));
    ASSERT_EQ(result.outputs.size(), 1u);
    const std::string diff = testing::CompareTensors(result.outputs[0].host, data.expected[0],
                                                     testing::ModelTolerance(data.expected[0]));
    EXPECT_TRUE(diff.empty()) << name << " vs onnxruntime: " << diff;
  }
};

TEST_F(SubgraphFusionTest, FusesInsideIfBranchesAndMatchesOnnxRuntime) {
  ASSERT_TRUE(GetCases().error.empty()) << GetCases().error;
  const std::string path = (GetCases().dir / "if_fusion_then" / "model.onnx").string();
  VKSERVE_ASSERT_OK_AND_ASSIGN(const std::shared_ptr<Model> model, Model::Load(path, context()));
  EXPECT_THAT(BranchOps(*model, "then_branch"),
              ElementsAre(::testing::EndsWith("=Gelu"), "Sigmoid+Mul=Swish", "Add"));
  EXPECT_THAT(BranchOps(*model, "else_branch"), ElementsAre("Sigmoid+Mul=Swish"));
  ExpectMatches(model, "if_fusion_then");
  ExpectMatches(model, "if_fusion_else");
}

// The same model with the two fusions disabled by name: the branches keep
// their nodes, and the output is the same.
TEST_F(SubgraphFusionTest, DisabledFusionsLeaveTheBranchesAsStored) {
  ASSERT_TRUE(GetCases().error.empty()) << GetCases().error;
  const std::string path = (GetCases().dir / "if_fusion_then" / "model.onnx").string();
  ModelOptions options;
  options.disabled_passes = {"gelu-fusion", "silu-fusion"};
  VKSERVE_ASSERT_OK_AND_ASSIGN(const std::shared_ptr<Model> model,
                               Model::Load(path, context(), options));
  EXPECT_THAT(BranchOps(*model, "else_branch"), ElementsAre("Sigmoid", "Mul"));
  ExpectMatches(model, "if_fusion_then");
  ExpectMatches(model, "if_fusion_else");
}

TEST_F(SubgraphFusionTest, AnUnknownPassNameFailsTheLoadListingTheNames) {
  ASSERT_TRUE(GetCases().error.empty()) << GetCases().error;
  const std::string path = (GetCases().dir / "if_fusion_then" / "model.onnx").string();
  ModelOptions options;
  options.disabled_passes = {"gelu-fusoin"};
  absl::StatusOr<std::shared_ptr<Model>> model = Model::Load(path, context(), options);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(model.status().message()),
              ::testing::HasSubstr("unknown graph pass 'gelu-fusoin'"));
  EXPECT_THAT(std::string(model.status().message()), ::testing::HasSubstr("gelu-fusion"));
}

}  // namespace
}  // namespace vkserve
