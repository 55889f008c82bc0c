// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/fusion.h"

#include <map>
#include <optional>
#include <set>

#include "runtime/activation.h"
#include "runtime/graph_uses.h"
#include "runtime/planner.h"

namespace vkserve {
std::vector<std::vector<int64_t>> ShapesWithFreeDims(const std::vector<ValueInfo>& inputs,
                                                     int64_t value) {
  std::vector<std::vector<int64_t>> shapes;
  for (const ValueInfo& in : inputs) {
    std::vector<int64_t> s;
    for (const Dim& d : in.type.shape) s.push_back(d.is_fixed() ? d.value : value);
    shapes.push_back(std::move(s));
  }
  return shapes;
}

std::string FusedOpName(const Node& node) {
  const Attribute* a = node.FindAttribute(kFusedNameAttr);
  return a != nullptr && a->type == Attribute::Type::kString ? a->s : node.op_type;
}

absl::StatusOr<int> FuseEpilogues(Graph* graph, const std::vector<const Op*>& ops,
                                  const std::vector<ValueInfo>& inputs) {
  // Shapes at two batch sizes: a residual must match at both, so a broadcast
  // that happens to coincide at size 1 is never fused.
  auto shapes1 = InferShapes(*graph, ops, inputs, ShapesWithFreeDims(inputs, 1));
  auto shapes3 = InferShapes(*graph, ops, inputs, ShapesWithFreeDims(inputs, 3));
  if (!shapes1.ok() || !shapes3.ok()) return 0;  // planning will report the error

  std::vector<Node>& nodes = graph->nodes;
  std::map<std::string, std::vector<size_t>> consumers;
  std::map<std::string, size_t> producer_of;
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (const std::string& in : nodes[n].inputs) {
      if (!in.empty()) consumers[in].push_back(n);
    }
    for (const std::string& out : nodes[n].outputs) producer_of[out] = n;
  }
  std::set<std::string> graph_outputs;
  for (const ValueInfo& o : graph->outputs) graph_outputs.insert(o.name);

  std::vector<bool> removed(nodes.size(), false);
  int fused = 0;
  for (size_t p = 0; p < nodes.size(); ++p) {
    Node& producer = nodes[p];
    if (removed[p] || producer.outputs.size() != 1) continue;
    // Which ops have an epilogue, and where it reads a residual or bias, is
    // the op's business (Op::FusableEpilogue).
    const std::optional<Op::EpilogueSlots> slots = ops[p]->FusableEpilogue(producer);
    if (!slots) continue;
    auto epilogue = GetEpilogue(producer);
    if (!epilogue.ok()) continue;
    std::string name = producer.op_type;
    while (true) {
      const std::string out = producer.outputs[0];
      auto it = consumers.find(out);
      if (graph_outputs.count(out) || it == consumers.end() || it->second.size() != 1) break;
      const size_t c = it->second[0];
      Node& consumer = nodes[c];
      if (removed[c] || consumer.outputs.size() != 1) break;
      bool merged = false;
      if (epilogue->activation.kind == Activation::kNone && consumer.inputs[0] == out) {
        // Whatever activation the consumer's op computes, with constant
        // parameters (Clip's bounds) read from initializers.
        auto constant = [&](size_t i) -> const HostTensor* {
          if (i >= consumer.inputs.size() || consumer.inputs[i].empty()) return nullptr;
          auto init = graph->initializers.find(consumer.inputs[i]);
          return init == graph->initializers.end() ? nullptr : &init->second;
        };
        auto act = ops[c]->EpilogueActivation(consumer, constant);
        if (act.ok()) {
          epilogue->activation = *act;
          name += "+" + consumer.op_type;
          merged = true;
        }
      }
      // MatMul -> Add(bias[N]) before any activation or residual: the bias
      // becomes MatMul's optional input 3, added in the kernel's store.
      const size_t bias_slot = static_cast<size_t>(slots->bias_input);
      if (!merged && slots->bias_input >= 0 && epilogue->empty() &&
          (producer.inputs.size() <= bias_slot || producer.inputs[bias_slot].empty()) &&
          ops[c]->IsElementwiseAdd(consumer) && consumer.inputs.size() == 2 &&
          consumer.inputs[0] != consumer.inputs[1]) {
        const std::string& other = consumer.inputs[0] == out ? consumer.inputs[1] : consumer.inputs[0];
        const auto& s1 = *shapes1;
        const auto& s3 = *shapes3;
        const bool is_bias = graph->initializers.count(other) && s1.count(out) && s3.count(out) &&
                             !s1.at(out).shape.empty() && !s3.at(out).shape.empty() &&
                             (s1.at(out).dtype == DataType::kFloat ||
                              s1.at(out).dtype == DataType::kFloat16) &&
                             graph->initializers.at(other).dtype == s1.at(out).dtype &&
                             graph->initializers.at(other).shape ==
                                 std::vector<int64_t>{s1.at(out).shape.back()} &&
                             s1.at(out).shape.back() == s3.at(out).shape.back();
        if (is_bias) {
          if (producer.inputs.size() <= bias_slot) producer.inputs.resize(bias_slot + 1);
          producer.inputs[bias_slot] = other;
          consumers[other].push_back(p);
          name += "+Add";
          merged = true;
        }
      }
      if (!merged && epilogue->residual == Epilogue::Residual::kNone &&
          ops[c]->IsElementwiseAdd(consumer) && consumer.inputs.size() == 2 &&
          consumer.inputs[0] != consumer.inputs[1]) {
        const std::string& other = consumer.inputs[0] == out ? consumer.inputs[1] : consumer.inputs[0];
        auto prod = producer_of.find(other);
        const bool ready_before = prod == producer_of.end() || prod->second < p;
        const auto& s1 = *shapes1;
        const auto& s3 = *shapes3;
        const bool same_shape = s1.count(other) && s1.count(out) && s3.count(other) &&
                                s3.count(out) && s1.at(other).shape == s1.at(out).shape &&
                                s3.at(other).shape == s3.at(out).shape &&
                                s1.at(other).dtype == s1.at(out).dtype &&
                                (s1.at(out).dtype == DataType::kFloat ||
                                 s1.at(out).dtype == DataType::kFloat16);
        if (ready_before && same_shape) {
          const size_t slot = static_cast<size_t>(slots->residual_input);
          if (producer.inputs.size() <= slot) producer.inputs.resize(slot + 1);
          producer.inputs[slot] = other;
          epilogue->residual = epilogue->activation.kind == Activation::kNone
                                   ? Epilogue::Residual::kBeforeActivation
                                   : Epilogue::Residual::kAfterActivation;
          epilogue->residual_input = static_cast<int>(slot);
          consumers[other].push_back(p);
          name += "+Add";
          merged = true;
        }
      }
      if (!merged) break;
      producer.absorbed.insert(producer.absorbed.end(), consumer.absorbed.begin(),
                               consumer.absorbed.end());
      producer.outputs[0] = consumer.outputs[0];
      producer_of[producer.outputs[0]] = p;
      removed[c] = true;
      ++fused;
    }
    if (name != producer.op_type) {
      SetEpilogue(*epilogue, &producer);
      Attribute a;
      a.type = Attribute::Type::kString;
      a.s = name;
      producer.attributes[kFusedNameAttr] = a;
    }
  }
  EraseNodes(removed, &nodes);
  return fused;
}

int LiftConstantNodes(Graph* graph) {
  std::set<std::string> graph_outputs;
  for (const ValueInfo& o : graph->outputs) graph_outputs.insert(o.name);
  int lifted = 0;
  std::vector<Node> kept;
  kept.reserve(graph->nodes.size());
  for (Node& node : graph->nodes) {
    const bool one_new_output = node.domain.empty() && node.outputs.size() == 1 &&
                                !node.outputs[0].empty() && !graph_outputs.count(node.outputs[0]) &&
                                !graph->initializers.count(node.outputs[0]);
    const Attribute* value = node.FindAttribute("value");
    if (one_new_output && node.op_type == "Constant" && node.attributes.size() == 1 &&
        value != nullptr && value->type == Attribute::Type::kTensor) {
      graph->initializers[node.outputs[0]] = value->t;
      ++lifted;
      continue;
    }
    // Nodes are in topological order, so an Identity of a lifted Constant
    // (or of an Identity) sees its input already lifted.
    if (one_new_output && node.op_type == "Identity" && node.inputs.size() == 1) {
      auto it = graph->initializers.find(node.inputs[0]);
      if (it != graph->initializers.end()) {
        HostTensor copy = it->second;
        graph->initializers[node.outputs[0]] = std::move(copy);
        ++lifted;
        continue;
      }
    }
    kept.push_back(std::move(node));
  }
  graph->nodes = std::move(kept);
  return lifted;
}

}  // namespace vkserve
