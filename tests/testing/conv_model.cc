// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "tests/testing/conv_model.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace vkserve::testing {

Graph ConvGraph(const ConvGraphSpec& spec) {
  Graph g;
  g.opset_imports[""] = 13;
  TensorType in;
  in.dtype = DataType::kFloat;
  in.has_shape = true;
  in.shape = spec.input_shape;
  g.inputs.push_back({"x", in});
  g.outputs.push_back({"y", in});
  if (spec.relu) g.outputs.push_back({"z", in});
  const int64_t channels = spec.input_shape.at(1).value;
  std::vector<float> w(static_cast<size_t>(channels * channels * 9));
  std::mt19937 rng(spec.weight_seed);
  for (float& v : w) v = static_cast<float>(rng() % 100) / 100.0f - 0.5f;
  g.initializers["W"] = HostTensor::FromFloats(w, {channels, channels, 3, 3});
  Node conv;
  conv.name = "conv";
  conv.op_type = "Conv";
  conv.opset = 13;
  conv.inputs = {"x", "W"};
  conv.outputs = {"y"};
  Attribute pads;
  pads.type = Attribute::Type::kInts;
  pads.ints = {1, 1, 1, 1};
  conv.attributes["pads"] = pads;
  g.nodes.push_back(conv);
  if (spec.relu) {
    Node relu;
    relu.name = "relu";
    relu.op_type = "Relu";
    relu.opset = 13;
    relu.inputs = {"y"};
    relu.outputs = {"z"};
    g.nodes.push_back(relu);
  }
  return g;
}

std::vector<uint8_t> RandomFloatBytes(size_t count, unsigned seed) {
  std::vector<float> v(count);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& f : v) f = dist(rng);
  std::vector<uint8_t> bytes(v.size() * 4);
  if (!bytes.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

std::vector<std::vector<uint8_t>> RunAlone(Session& session, const std::string& name,
                                           const std::vector<int64_t>& shape,
                                           const std::vector<uint8_t>& bytes) {
  RunRequest run;
  run.inputs.push_back(InputBinding::Host(name, DataType::kFloat, shape, bytes));
  auto result = session.Run(run);
  EXPECT_TRUE(result.ok()) << result.status();
  std::vector<std::vector<uint8_t>> outs;
  if (result.ok()) {
    for (const RunOutput& o : result->outputs) outs.push_back(o.host.data.ToVector());
  }
  return outs;
}

}  // namespace vkserve::testing
