// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Malformed nodes of the KV-cache, signal, text and linear/flex attention
// ops (TensorScatter, DFT, STFT, MelWeightMatrix, TfIdfVectorizer,
// LinearAttention, FlexAttention) are refused with INVALID_ARGUMENT naming the problem, when
// the model loads or when it is planned, never by a crash or a kernel that
// reads out of bounds. Their numerics are the op cases' and the ONNX suite's.
#include <string>
#include <vector>

#include "runtime/model.h"
#include "tests/testing/gpu_fixture.h"

namespace vkserve {
namespace {

using testing::GpuTest;

TensorType Tensor(DataType dtype, const std::vector<int64_t>& shape) {
  TensorType t;
  t.dtype = dtype;
  t.has_shape = true;
  for (int64_t d : shape) t.shape.push_back(Dim{d, "", ""});
  return t;
}

Attribute Int(int64_t v) {
  Attribute a;
  a.type = Attribute::Type::kInt;
  a.i = v;
  return a;
}

Attribute String(std::string v) {
  Attribute a;
  a.type = Attribute::Type::kString;
  a.s = std::move(v);
  return a;
}

Attribute Ints(std::vector<int64_t> v) {
  Attribute a;
  a.type = Attribute::Type::kInts;
  a.ints = std::move(v);
  return a;
}

Attribute Float(float v) {
  Attribute a;
  a.type = Attribute::Type::kFloat;
  a.f = v;
  return a;
}

// One node reading float graph inputs of `shapes` (named in0, in1, ...;
// "" leaves an optional input out) and int64 scalar initializers `ints`,
// writing float `outputs`.
struct OneNode {
  std::string op_type;
  std::string domain;
  int64_t opset = 0;
  std::vector<std::pair<std::string, std::vector<int64_t>>> inputs;  // name, shape ("" omitted)
  std::map<std::string, HostTensor> initializers;
  std::vector<std::string> outputs = {"y"};
  std::map<std::string, Attribute> attributes;
};

OneNode Spec(std::string op_type, std::string domain, int64_t opset,
             std::vector<std::pair<std::string, std::vector<int64_t>>> inputs) {
  OneNode spec;
  spec.op_type = std::move(op_type);
  spec.domain = std::move(domain);
  spec.opset = opset;
  spec.inputs = std::move(inputs);
  return spec;
}

Graph GraphOf(const OneNode& spec) {
  Graph g;
  g.opset_imports[""] = spec.domain.empty() ? spec.opset : 21;
  if (!spec.domain.empty()) g.opset_imports[spec.domain] = spec.opset;
  Node node;
  node.name = "node";
  node.op_type = spec.op_type;
  node.domain = spec.domain;
  node.opset = spec.opset;
  node.attributes = spec.attributes;
  for (const auto& [name, shape] : spec.inputs) {
    node.inputs.push_back(name);
    if (!name.empty() && !spec.initializers.contains(name)) {
      g.inputs.push_back({name, Tensor(DataType::kFloat, shape)});
    }
  }
  g.initializers = spec.initializers;
  node.outputs = spec.outputs;
  for (const std::string& out : spec.outputs) {
    if (!out.empty()) g.outputs.push_back({out, TensorType{DataType::kFloat, false, {}}});
  }
  g.nodes.push_back(node);
  return g;
}

class MalformedNodesTest : public GpuTest {
 protected:
  // The first error of loading `spec` and planning it at its inputs' shapes.
  absl::Status LoadAndPlan(const OneNode& spec) {
    auto model =
        Model::FromGraph(GraphOf(spec), {device_.get(), allocator_.get(), pipelines_.get()});
    if (!model.ok()) return model.status();
    std::vector<std::vector<int64_t>> shapes;
    for (const auto& [name, shape] : spec.inputs) {
      if (!name.empty() && !spec.initializers.contains(name)) shapes.push_back(shape);
    }
    return (*model)->GetPlan(shapes).status();
  }

  void ExpectRefused(const OneNode& spec, const std::string& words) {
    const absl::Status status = LoadAndPlan(spec);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
    EXPECT_NE(std::string(status.message()).find(words), std::string::npos)
        << "\"" << words << "\" not in: " << status;
  }
};

HostTensor Scalar(int64_t v) { return HostTensor::FromInts({v}, {}); }

TEST_F(MalformedNodesTest, GoodNodesPlan) {
  // The control: the shapes below differ from these only in what is named.
  OneNode scatter =
      Spec("TensorScatter", "", 24, {{"past", {2, 3, 8, 4}}, {"update", {2, 3, 2, 4}}});
  EXPECT_TRUE(LoadAndPlan(scatter).ok()) << LoadAndPlan(scatter);
  OneNode dft = Spec("DFT", "", 20, {{"x", {1, 10, 2}}});
  EXPECT_TRUE(LoadAndPlan(dft).ok()) << LoadAndPlan(dft);
  OneNode linear =
      Spec("LinearAttention", "", 27, {{"q", {1, 2, 8}}, {"k", {1, 2, 8}}, {"v", {1, 2, 8}}});
  linear.attributes = {
      {"q_num_heads", Int(2)}, {"kv_num_heads", Int(2)}, {"update_rule", String("linear")}};
  EXPECT_TRUE(LoadAndPlan(linear).ok()) << LoadAndPlan(linear);
}

TEST_F(MalformedNodesTest, TensorScatter) {
  OneNode longer =
      Spec("TensorScatter", "", 24, {{"past", {2, 3, 8, 4}}, {"update", {2, 3, 9, 4}}});
  ExpectRefused(longer, "does not fit past_cache");
  OneNode batch_axis = longer;
  batch_axis.inputs[1].second = {2, 3, 8, 4};
  batch_axis.attributes["axis"] = Int(0);
  ExpectRefused(batch_axis, "batch axis");
  OneNode mode = batch_axis;
  mode.attributes = {{"mode", String("ring")}};
  ExpectRefused(mode, "\"linear\" or \"circular\"");
}

TEST_F(MalformedNodesTest, DftAndStft) {
  OneNode last_axis = Spec("DFT", "", 17, {{"x", {1, 10, 2}}});
  last_axis.attributes["axis"] = Int(2);
  ExpectRefused(last_axis, "axis is out of range");
  OneNode parts = Spec("DFT", "", 17, {{"x", {1, 10, 3}}});
  ExpectRefused(parts, "must end in a dim of 1 (real) or 2 (complex)");
  OneNode length = Spec("DFT", "", 17, {{"x", {1, 10, 1}}, {"n", {}}});
  length.initializers["n"] = Scalar(0);
  ExpectRefused(length, "must be positive");
  // A length the model may ask for but vkserve will not allocate tables for.
  length.initializers["n"] = Scalar(int64_t{1} << 40);
  const absl::Status huge = LoadAndPlan(length);
  EXPECT_TRUE(absl::IsUnimplemented(huge)) << huge;
  OneNode frames =
      Spec("STFT", "", 17, {{"signal", {1, 16, 1}}, {"step", {}}, {"", {}}, {"length", {}}});
  frames.initializers = {{"step", Scalar(4)}, {"length", Scalar(32)}};
  ExpectRefused(frames, "do not fit a signal of 16");
}

TEST_F(MalformedNodesTest, MelWeightMatrixEdgePastTheSpectrum) {
  OneNode mel = Spec("MelWeightMatrix", "", 17,
                     {{"bins", {}}, {"n", {}}, {"rate", {}}, {"low", {}}, {"high", {}}});
  mel.initializers = {{"bins", Scalar(8)},
                      {"n", Scalar(16)},
                      {"rate", Scalar(8000)},
                      {"low", HostTensor::FromFloats({0}, {})},
                      {"high", HostTensor::FromFloats({16000}, {})}};
  ExpectRefused(mel, "past the spectrum's last bin");
}

TEST_F(MalformedNodesTest, LinearAttention) {
  OneNode heads =
      Spec("LinearAttention", "", 27, {{"q", {1, 2, 12}}, {"k", {1, 2, 8}}, {"v", {1, 2, 8}}});
  heads.attributes = {
      {"q_num_heads", Int(3)}, {"kv_num_heads", Int(2)}, {"update_rule", String("linear")}};
  ExpectRefused(heads, "positive multiple");
  OneNode decay =
      Spec("LinearAttention", "", 27, {{"q", {1, 2, 8}}, {"k", {1, 2, 8}}, {"v", {1, 2, 8}}});
  decay.attributes = {
      {"q_num_heads", Int(2)}, {"kv_num_heads", Int(2)}, {"update_rule", String("gated")}};
  ExpectRefused(decay, "needs decay");
  OneNode key =
      Spec("LinearAttention", "", 27, {{"q", {1, 2, 8}}, {"k", {1, 3, 8}}, {"v", {1, 2, 8}}});
  key.attributes = {{"q_num_heads", Int(2)},
                    {"kv_num_heads", Int(2)},
                    {"update_rule", String("linear")},
                    {"scale", Float(0.5f)}};
  ExpectRefused(key, "LinearAttention key is [1,3,8], expected [1,2,8]");
}

TEST_F(MalformedNodesTest, TfIdfVectorizerPoolNotSplitIntoGrams) {
  OneNode tfidf = Spec("TfIdfVectorizer", "", 9, {{"x", {2, 6}}});
  tfidf.attributes = {{"mode", String("TF")},
                      {"ngram_counts", Ints({0, 3})},
                      {"ngram_indexes", Ints({0, 1, 2, 3})},
                      {"pool_int64s", Ints({1, 2, 3, 4, 5, 6})},
                      {"max_gram_length", Int(2)}};
  ExpectRefused(tfidf, "does not split the pool into 2-grams");
}

TEST_F(MalformedNodesTest, FlexAttentionHookOfTwoInputs) {
  Graph hook;
  hook.inputs = {{"a", TensorType{DataType::kFloat, false, {}}},
                 {"b", TensorType{DataType::kFloat, false, {}}}};
  hook.outputs = {{"c", TensorType{DataType::kFloat, false, {}}}};
  Node add;
  add.name = "add";
  add.op_type = "Add";
  add.inputs = {"a", "b"};
  add.outputs = {"c"};
  hook.nodes.push_back(add);
  Attribute mod;
  mod.type = Attribute::Type::kGraph;
  mod.graphs.push_back(std::make_shared<const Graph>(hook));
  OneNode flex = Spec("FlexAttention", "ai.onnx.preview", 1,
                      {{"q", {1, 2, 4, 8}}, {"k", {1, 2, 4, 8}}, {"v", {1, 2, 4, 8}}});
  flex.attributes["score_mod"] = mod;
  ExpectRefused(flex, "score_mod must take one tensor and return one");
}

}  // namespace
}  // namespace vkserve
