// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Model outputs that alias a kernel's result keep those bytes in the
// output's own buffer, with no copy after the last node: a decoder's first
// step, where Concat(empty past, keys) is an alias of the keys (one input
// with bytes) and the keys are also read on (Mul). At a non-empty past the
// Concat runs its kernel. When the aliased keys are themselves an output
// too, they claim the buffer and the alias is copied. Results against a
// host computation of the same graph.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runtime/ir/graph.h"
#include "runtime/model.h"
#include "runtime/plan/plan.h"
#include "runtime/session.h"
#include "tests/testing/gpu_fixture.h"
#include "tests/testing/graph_helpers.h"

namespace vkserve {
namespace {

using testing::FloatType;
using testing::GpuTest;
using testing::MakeNode;

// past [1, 2, p, 4], x [1, 3, 2, 4]: k = Transpose(x) [1, 2, 3, 4];
// present = Concat(past, k) on axis 2; y = present * 2. Outputs: present, y
// (and k first, when `k_is_output`).
Graph DecoderStepGraph(bool k_is_output) {
  Graph g;
  g.opset_imports[""] = 13;
  g.inputs.push_back(
      {"past", FloatType({Dim{1, "", ""}, Dim{2, "", ""}, Dim{-1, "p", ""}, Dim{4, "", ""}})});
  g.inputs.push_back(
      {"x", FloatType({Dim{1, "", ""}, Dim{3, "", ""}, Dim{2, "", ""}, Dim{4, "", ""}})});
  if (k_is_output) g.outputs.push_back({"k", FloatType({})});
  g.outputs.push_back({"present", FloatType({})});
  g.outputs.push_back({"y", FloatType({})});
  Node transpose = MakeNode("transpose", "Transpose", {"x"}, "k");
  Attribute perm;
  perm.type = Attribute::Type::kInts;
  perm.ints = {0, 2, 1, 3};
  transpose.attributes["perm"] = perm;
  g.nodes.push_back(transpose);
  Node concat = MakeNode("concat", "Concat", {"past", "k"}, "present");
  Attribute axis;
  axis.type = Attribute::Type::kInt;
  axis.i = 2;
  concat.attributes["axis"] = axis;
  g.nodes.push_back(concat);
  g.nodes.push_back(MakeNode("double", "Mul", {"present", "two"}, "y"));
  g.initializers["two"] = HostTensor::FromFloats({2}, {});
  return g;
}

using testing::Floats;

class OutputAliasTest : public GpuTest, public ::testing::WithParamInterface<bool> {
 protected:
  GpuContext gpu() { return {device_.get(), allocator_.get(), pipelines_.get()}; }
};

TEST_P(OutputAliasTest, AliasedOutputsNeedNoCopyAndMatchTheHost) {
  const bool k_is_output = GetParam();
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<Model> model,
                               Model::FromGraph(DecoderStepGraph(k_is_output), gpu()));
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 7.5f;
  const HostTensor xt = HostTensor::FromFloats(x, {1, 3, 2, 4});
  for (int64_t p : {0, 2}) {
    SCOPED_TRACE(::testing::Message() << "past length " << p);
    std::vector<float> past(static_cast<size_t>(8 * p));
    for (size_t i = 0; i < past.size(); ++i) past[i] = 100.0f + static_cast<float>(i);
    const HostTensor pt = HostTensor::FromFloats(past, {1, 2, p, 4});

    // The host's result: present[0, h, t, d] = past for t < p, else x[0, t - p, h, d].
    std::vector<float> want_k, want_present, want_y;
    for (int h = 0; h < 2; ++h) {
      for (int t = 0; t < 3; ++t) {
        for (int d = 0; d < 4; ++d) want_k.push_back(x[(t * 2 + h) * 4 + d]);
      }
    }
    for (int h = 0; h < 2; ++h) {
      for (int64_t t = 0; t < p + 3; ++t) {
        for (int d = 0; d < 4; ++d) {
          want_present.push_back(t < p ? past[(h * p + t) * 4 + d]
                                       : want_k[(h * 3 + (t - p)) * 4 + d]);
        }
      }
    }
    for (float v : want_present) want_y.push_back(2 * v);

    VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<const Plan> plan,
                                 model->GetPlan({{1, 2, p, 4}, {1, 3, 2, 4}}, {}));
    // Aliased at p = 0, unless k claimed the buffer: then present is copied.
    EXPECT_EQ(plan->alias_nodes, p == 0 ? 1 : 0);
    EXPECT_EQ(plan->output_copies.size(), p == 0 && k_is_output ? 1u : 0u);

    RunRequest request;
    request.inputs.push_back(InputBinding::Host("past", pt));
    request.inputs.push_back(InputBinding::Host("x", xt));
    for (int run = 0; run < 2; ++run) {  // recorded, then replayed
      VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult result, session->Run(request));
      const size_t first = k_is_output ? 1 : 0;
      ASSERT_EQ(result.outputs.size(), first + 2);
      if (k_is_output) {
        EXPECT_EQ(Floats(result.outputs[0].host), want_k);
      }
      EXPECT_EQ(result.outputs[first].host.shape, (std::vector<int64_t>{1, 2, p + 3, 4}));
      EXPECT_EQ(Floats(result.outputs[first].host), want_present);
      EXPECT_EQ(Floats(result.outputs[first + 1].host), want_y);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(KeysAlsoAnOutput, OutputAliasTest, ::testing::Bool());

}  // namespace
}  // namespace vkserve
