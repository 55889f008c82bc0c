// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// FP16 activations (runtime/plan/fp16_activations.h): which initializers are
// stored in fp16 and how (saturating), where plans convert activations (an
// op without an fp16 form gets an fp32 copy, once per value; the graph output
// keeps its type), and that a masked softmax built the way BERT's exporters
// write it (0 * mask, with mask = -3.4e38) stays finite and within fp16's
// rounding of the FP32 run. bert_tiny and gpt2_tiny at FP16 are
// runtime_sequence_length_test's.
#include "runtime/plan/fp16_activations.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/model.h"
#include "runtime/op/op_registry.h"
#include "runtime/session.h"
#include "tests/testing/gpu_fixture.h"
#include "tests/testing/model_cases.h"

namespace vkserve {
namespace {

using testing::GpuTest;

constexpr int64_t kRows = 4, kCols = 16;

Node MakeNode(const std::string& type, std::vector<std::string> inputs, const std::string& output) {
  Node n;
  n.name = output;
  n.op_type = type;
  n.opset = 17;
  n.inputs = std::move(inputs);
  n.outputs = {output};
  return n;
}

// y = Softmax(x + (1 - keep) * big) + x * scale, with `big` = -3.4e38 as
// exporters write an additive mask (where keep is 1, 0 * big must be 0).
// `scaled` names x * scale (a model may use the names FP16 makes up).
Graph MaskedSoftmaxGraph(const std::string& scaled = "scaled") {
  Graph g;
  g.opset_imports[""] = 17;
  TensorType type;
  type.dtype = DataType::kFloat;
  type.has_shape = true;
  type.shape = {Dim{kRows, "", ""}, Dim{kCols, "", ""}};
  g.inputs.push_back({"x", type});
  g.inputs.push_back({"keep", type});
  g.outputs.push_back({"y", type});
  g.initializers["one"] = HostTensor::FromFloats({1.0f}, {});
  g.initializers["big"] = HostTensor::FromFloats({-3.4e38f}, {});
  std::vector<float> scale(kCols);
  for (int64_t c = 0; c < kCols; ++c) scale[c] = 0.25f + 0.125f * static_cast<float>(c);
  g.initializers["scale"] = HostTensor::FromFloats(scale, {kCols});
  g.nodes.push_back(MakeNode("Sub", {"one", "keep"}, "dropped"));
  g.nodes.push_back(MakeNode("Mul", {"dropped", "big"}, "mask"));
  g.nodes.push_back(MakeNode("Add", {"x", "mask"}, "scores"));
  g.nodes.push_back(MakeNode("Softmax", {"scores"}, "probs"));
  g.nodes.push_back(MakeNode("Mul", {"x", "scale"}, scaled));
  g.nodes.push_back(MakeNode("Add", {"probs", scaled}, "y"));
  return g;
}

std::vector<const Op*> OpsOf(const Graph& g) {
  std::vector<const Op*> ops;
  for (const Node& n : g.nodes) {
    absl::StatusOr<const Op*> op = OpRegistry::Global().Find(n);
    EXPECT_TRUE(op.ok()) << op.status();
    ops.push_back(op.ok() ? *op : nullptr);
  }
  return ops;
}

uint16_t HalfAt(const HostTensor& t, int64_t i) {
  uint16_t h;
  std::memcpy(&h, t.data.data() + 2 * i, 2);
  return h;
}

TEST(HalveInitializersTest, HalvesWhatOnlyFp16OpsReadAndSaturates) {
  Graph g = MaskedSoftmaxGraph();
  g.initializers["softmax_only"] = HostTensor::FromFloats({1.0f, 2.0f}, {2});
  g.nodes.push_back(MakeNode("Softmax", {"softmax_only"}, "z"));
  g.initializers["returned"] = HostTensor::FromFloats({3.0f}, {1});
  g.nodes.push_back(MakeNode("Mul", {"returned", "one"}, "w"));
  g.outputs.push_back({"returned", {}});
  const std::vector<const Op*> ops = OpsOf(g);

  const std::set<std::string> halved = HalveInitializers(&g, ops);
  EXPECT_EQ(halved, (std::set<std::string>{"big", "one", "scale"}));
  ASSERT_EQ(g.initializers["big"].dtype, DataType::kFloat16);
  EXPECT_EQ(HalfToFloat(HalfAt(g.initializers["big"], 0)), -65504.0f) << "saturated, not -inf";
  EXPECT_EQ(HalfToFloat(HalfAt(g.initializers["scale"], 3)), 0.625f);
  EXPECT_EQ(g.initializers["softmax_only"].dtype, DataType::kFloat) << "Softmax has no fp16 form";
  EXPECT_EQ(g.initializers["returned"].dtype, DataType::kFloat) << "a graph output";
}

class Fp16ActivationsTest : public GpuTest {
 protected:
  absl::StatusOr<std::shared_ptr<Model>> Load(Precision precision,
                                              const std::string& scaled = "scaled") {
    ModelOptions options;
    options.precision = precision;
    return Model::FromGraph(MaskedSoftmaxGraph(scaled),
                            {device_.get(), allocator_.get(), pipelines_.get()}, options);
  }
};

TEST_F(Fp16ActivationsTest, ConvertsAroundOpsWithoutFp16AndKeepsTheOutputType) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(const std::shared_ptr<Model> model, Load(Precision::kFp16));
  ASSERT_TRUE(model->fp16_activations());
  VKSERVE_ASSERT_OK_AND_ASSIGN(const std::shared_ptr<const Plan> plan,
                               model->GetPlan({{kRows, kCols}, {kRows, kCols}}));
  std::map<std::string, const PlannedNode*> by_output;
  std::vector<std::string> casts;
  for (const PlannedNode& p : plan->nodes) {
    by_output[p.node->outputs[0]] = &p;
    if (p.node->op_type == "Cast") casts.push_back(p.node->outputs[0]);
  }
  auto dtype = [&](const std::string& value) {
    return plan->values[by_output.at(value)->outputs[0]].desc.dtype;
  };
  // The inputs to fp16 (x once for its two readers); Softmax's input to fp32
  // and its output back; y's fp16 twin to the declared float.
  const std::string p = Fp16Activations::kPrefix;
  EXPECT_EQ(casts,
            (std::vector<std::string>{p + "keep", p + "x", p + "scores/fp32", p + "probs", "y"}));
  EXPECT_EQ(dtype("scores"), DataType::kFloat16);
  EXPECT_EQ(dtype("probs"), DataType::kFloat) << "Softmax ran in fp32";
  EXPECT_EQ(dtype(p + "y"), DataType::kFloat16);
  EXPECT_EQ(dtype("y"), DataType::kFloat);
  EXPECT_EQ(by_output.at(p + "scores/fp32")->node->rewritten_from, "probs") << "shown as Softmax's";
}

// fp16 sums are an FP16-precision choice, off unless asked for: at FP32
// precision the load refuses them, naming what they need.
TEST_F(Fp16ActivationsTest, Fp16AccumulationNeedsFp16PrecisionAndIsOffByDefault) {
  EXPECT_EQ(ModelOptions().accumulation, Accumulation::kFp32);
  ModelOptions options;
  options.accumulation = Accumulation::kFp16;
  const GpuContext gpu{device_.get(), allocator_.get(), pipelines_.get()};
  const absl::StatusOr<std::shared_ptr<Model>> refused =
      Model::FromGraph(MaskedSoftmaxGraph(), gpu, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("FP16 accumulation needs FP16 precision"),
            std::string::npos)
      << refused.status();
  options.precision = Precision::kFp16;
  VKSERVE_ASSERT_OK(Model::FromGraph(MaskedSoftmaxGraph(), gpu, options).status());
}

TEST_F(Fp16ActivationsTest, MakesUpNoNameTheModelUses) {
  // The model names a value as FP16 would name x's conversion.
  const std::string taken = std::string(Fp16Activations::kPrefix) + "x";
  VKSERVE_ASSERT_OK_AND_ASSIGN(const std::shared_ptr<Model> model, Load(Precision::kFp16, taken));
  VKSERVE_ASSERT_OK_AND_ASSIGN(const std::shared_ptr<const Plan> plan,
                               model->GetPlan({{kRows, kCols}, {kRows, kCols}}));
  std::map<std::string, int> writers;
  for (const PlannedNode& p : plan->nodes) {
    for (const std::string& out : p.node->outputs) ++writers[out];
  }
  EXPECT_EQ(writers[taken], 1) << "written by the model's Mul alone";
  EXPECT_EQ(writers[taken + "_1"], 1) << "x's conversion, renamed";
}

TEST_F(Fp16ActivationsTest, MaskedSoftmaxStaysFiniteWithinFp16OfFp32) {
  std::vector<float> x(kRows * kCols), keep(kRows * kCols);
  for (int64_t i = 0; i < kRows * kCols; ++i) {
    x[i] = std::sin(0.37f * static_cast<float>(i)) * 3.0f;
    keep[i] = (i % kCols) < 5 + (i / kCols) * 3 ? 1.0f : 0.0f;  // every row keeps some
  }
  const std::vector<HostTensor> inputs = {HostTensor::FromFloats(x, {kRows, kCols}),
                                          HostTensor::FromFloats(keep, {kRows, kCols})};
  std::map<Precision, std::vector<float>> y;
  for (Precision precision : {Precision::kFp32, Precision::kFp16}) {
    VKSERVE_ASSERT_OK_AND_ASSIGN(const std::shared_ptr<Model> model, Load(precision));
    VKSERVE_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> session, Session::Create(model));
    VKSERVE_ASSERT_OK_AND_ASSIGN(const RunResult result,
                                 session->Run(testing::HostRequest(*model, inputs)));
    ASSERT_EQ(result.outputs.size(), 1u);
    ASSERT_EQ(result.outputs[0].dtype, DataType::kFloat);
    const HostTensor& out = result.outputs[0].host;
    for (int64_t i = 0; i < out.num_elements(); ++i) {
      y[precision].push_back(static_cast<float>(out.GetDouble(i)));
    }
  }
  double max_diff = 0;
  for (size_t i = 0; i < y[Precision::kFp32].size(); ++i) {
    ASSERT_TRUE(std::isfinite(y[Precision::kFp16][i])) << "element " << i;
    const double want = y[Precision::kFp32][i];
    const double diff = std::abs(y[Precision::kFp16][i] - want);
    max_diff = std::max(max_diff, diff);
    // fp16 keeps 11 bits: a few roundings of values up to ~8.
    EXPECT_LE(diff, 1e-2 * std::max(1.0, std::abs(want))) << "element " << i;
  }
  EXPECT_GT(max_diff, 0) << "FP16 gave FP32's bits: nothing was rounded";
}

}  // namespace
}  // namespace vkserve
