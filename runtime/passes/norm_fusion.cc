// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/norm_fusion.h"

#include <map>
#include <optional>
#include <string>

#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/graph_uses.h"
#include "runtime/ops/nn/layer_normalization.h"
#include "runtime/passes/absorb_matches.h"
#include "runtime/passes/fusion.h"
#include "runtime/plan/planner.h"

namespace vkserve {
namespace {

using Shapes = std::map<std::string, TensorDesc>;

class NormMatcher {
 public:
  NormMatcher(const Graph& graph, const GraphUses& uses, const Shapes& s1, const Shapes& s3)
      : graph_(graph), uses_(uses), s1_(s1), s3_(s3) {}

  struct Match {
    std::string x;
    bool rms = false;
    float epsilon = 0;
    std::string scale, bias;    // initializers; empty when absent
    int64_t width = -1;         // the normalized dim when fixed
    size_t last = 0;            // becomes the LayerNormalization node
    std::vector<size_t> parts;  // every other node of the pattern
    std::string chain;
  };

  // The normalization around the Sqrt node `q`, or nullopt.
  std::optional<Match> At(size_t q) const {
    const Node& sqrt = graph_.nodes[q];
    if (!IsPlainNode(sqrt, "Sqrt") || sqrt.inputs.size() != 1) return std::nullopt;
    Match m;
    // Sqrt(ReduceMean(c^2) + eps)
    std::optional<size_t> add = uses_.SoleProducer(sqrt.inputs[0], q);
    if (!add || !IsPlainNode(graph_.nodes[*add], "Add") || graph_.nodes[*add].inputs.size() != 2) {
      return std::nullopt;
    }
    std::string variance;
    if (!ConstantOperand(graph_.nodes[*add], &variance, &m.epsilon) || !(m.epsilon >= 0))
      return std::nullopt;
    std::optional<size_t> mean = uses_.SoleProducer(variance, *add);
    if (!mean || !IsLastAxisMean(*mean)) return std::nullopt;
    std::optional<size_t> square = uses_.SoleProducer(graph_.nodes[*mean].inputs[0], *mean);
    std::string c;
    if (!square || !IsSquare(graph_.nodes[*square], &c)) return std::nullopt;
    // c = x - ReduceMean(x) (LayerNorm), or x itself (RMSNorm).
    m.x = c;
    m.rms = true;
    std::optional<size_t> sub = uses_.Producer(c);
    if (sub && IsPlainNode(graph_.nodes[*sub], "Sub") && graph_.nodes[*sub].inputs.size() == 2) {
      const Node& s = graph_.nodes[*sub];
      std::optional<size_t> centre = uses_.SoleProducer(s.inputs[1], *sub);
      if (centre && IsLastAxisMean(*centre) && graph_.nodes[*centre].inputs[0] == s.inputs[0]) {
        m.x = s.inputs[0];
        m.rms = false;
        m.parts.insert(m.parts.end(), {*centre, *sub});
        m.chain = "ReduceMean+Sub+";
      }
    }
    m.parts.insert(m.parts.end(), {*square, *mean, *add, q});
    m.chain += graph_.nodes[*square].op_type + "+ReduceMean+Add+Sqrt";
    std::optional<size_t> normalized = Normalize(q, c, &m);
    if (!normalized) return std::nullopt;
    // c feeds the square and the normalization only (when it is removed).
    if (!m.rms && (uses_.IsGraphOutput(c) ||
                   uses_.Readers(c).size() != (graph_.nodes[*square].op_type == "Mul" ? 3u : 2u))) {
      return std::nullopt;
    }
    Affine(*normalized, &m);
    return Fits(m) ? std::optional<Match>(m) : std::nullopt;
  }

 private:
  // `node` is a binary op with one float scalar constant operand.
  bool ConstantOperand(const Node& node, std::string* other, float* c) const {
    for (int side = 0; side < 2; ++side) {
      if (std::optional<float> k = FloatScalarInitializer(graph_, node.inputs[side])) {
        *c = *k;
        *other = node.inputs[1 - side];
        return true;
      }
    }
    return false;
  }

  // ReduceMean over the last axis with keepdims (axes as attribute or, from
  // opset 18, as an initializer input).
  bool IsLastAxisMean(size_t n) const {
    const Node& node = graph_.nodes[n];
    if (!node.domain.empty() || node.op_type != "ReduceMean" || node.inputs.empty() ||
        node.GetInt("keepdims", 1) != 1 || node.GetInt("noop_with_empty_axes", 0) != 0) {
      return false;
    }
    std::vector<int64_t> axes = node.GetInts("axes");
    if (node.inputs.size() == 2) {
      auto it = graph_.initializers.find(node.inputs[1]);
      if (it == graph_.initializers.end() || !axes.empty()) return false;
      axes = it->second.ToInts();
    } else if (node.inputs.size() != 1) {
      return false;
    }
    auto s = s1_.find(node.inputs[0]);
    if (axes.size() != 1 || s == s1_.end() || s->second.shape.empty()) return false;
    const int64_t rank = static_cast<int64_t>(s->second.shape.size());
    return axes[0] == -1 || axes[0] == rank - 1;
  }

  // Pow(c, 2) or c * c.
  bool IsSquare(const Node& n, std::string* c) const {
    if (IsPlainNode(n, "Mul") && n.inputs.size() == 2 && n.inputs[0] == n.inputs[1]) {
      *c = n.inputs[0];
      return true;
    }
    if (!IsPlainNode(n, "Pow") || n.inputs.size() != 2) return false;
    auto e = graph_.initializers.find(n.inputs[1]);
    if (e == graph_.initializers.end() || e->second.num_elements() != 1 ||
        e->second.GetDouble(0) != 2.0) {
      return false;
    }
    *c = n.inputs[0];
    return true;
  }

  // c / Sqrt(.), c * Reciprocal(Sqrt(.)) or c * (1 / Sqrt(.)): the node
  // writing the normalized value.
  std::optional<size_t> Normalize(size_t q, const std::string& c, Match* m) const {
    const std::string& root = graph_.nodes[q].outputs[0];
    std::optional<size_t> next = uses_.SoleReader(root);
    if (!next) return std::nullopt;
    const Node& n = graph_.nodes[*next];
    if (IsPlainNode(n, "Div") && n.inputs.size() == 2 && n.inputs[0] == c && n.inputs[1] == root) {
      m->chain += "+Div";
      return next;
    }
    std::string inverse;
    if (IsPlainNode(n, "Reciprocal") && n.inputs.size() == 1) {
      inverse = n.outputs[0];
      m->chain += "+Reciprocal";
    } else if (IsPlainNode(n, "Div") && n.inputs.size() == 2 && n.inputs[1] == root &&
               FloatScalarInitializer(graph_, n.inputs[0]) == 1.0f) {
      inverse = n.outputs[0];
      m->chain += "+Div";
    } else {
      return std::nullopt;
    }
    std::optional<size_t> mul = uses_.SoleReader(inverse);
    if (!mul || !IsPlainNode(graph_.nodes[*mul], "Mul") || graph_.nodes[*mul].inputs.size() != 2) {
      return std::nullopt;
    }
    const Node& product = graph_.nodes[*mul];
    const std::string& other = product.inputs[0] == inverse ? product.inputs[1] : product.inputs[0];
    if (other != c) return std::nullopt;
    m->parts.push_back(*next);
    m->chain += "+Mul";
    return mul;
  }

  // An optional Mul by a scale, then an optional Add of a bias, each a
  // float32 initializer of the normalized dim. Sets m->last.
  void Affine(size_t normalized, Match* m) const {
    m->last = normalized;
    for (const char* type : {"Mul", "Add"}) {
      std::optional<size_t> next = uses_.SoleReader(graph_.nodes[m->last].outputs[0]);
      if (!next || !IsPlainNode(graph_.nodes[*next], type) ||
          graph_.nodes[*next].inputs.size() != 2)
        return;
      const Node& n = graph_.nodes[*next];
      const std::string& in = graph_.nodes[m->last].outputs[0];
      const std::string& other = n.inputs[0] == in ? n.inputs[1] : n.inputs[0];
      if (other == in || !IsRowVector(other)) return;
      (std::string(type) == "Mul" ? m->scale : m->bias) = other;
      m->parts.push_back(m->last);
      m->last = *next;
      m->chain += std::string("+") + type;
    }
  }

  bool IsRowVector(const std::string& name) const {
    auto it = graph_.initializers.find(name);
    return it != graph_.initializers.end() && it->second.dtype == DataType::kFloat &&
           it->second.shape.size() == 1;
  }

  // x is fp32 of rank >= 1 and a scale or bias matches its last dim (fixed
  // when neither is given).
  bool Fits(Match& m) const {
    auto a = s1_.find(m.x);
    auto b = s3_.find(m.x);
    if (a == s1_.end() || b == s3_.end() || a->second.dtype != DataType::kFloat ||
        a->second.shape.empty() || b->second.shape.empty()) {
      return false;
    }
    const int64_t width = a->second.shape.back();
    if (width != b->second.shape.back() || width <= 0) return false;
    for (const std::string* v : {&m.scale, &m.bias}) {
      if (!v->empty() && graph_.initializers.at(*v).shape[0] != width) return false;
    }
    m.width = width;
    return true;
  }

  const Graph& graph_;
  const GraphUses& uses_;
  const Shapes& s1_;
  const Shapes& s3_;
};

// Turns the match's last node into the LayerNormalization node.
void WriteLayerNorm(Graph* graph, const NormMatcher::Match& m) {
  Node& node = graph->nodes[m.last];
  std::string scale = m.scale;
  if (scale.empty()) {
    scale = node.name + "/unit_scale";
    for (int i = 1; graph->initializers.count(scale); ++i)
      scale = node.name + "/unit_scale_" + std::to_string(i);
    graph->initializers[scale] =
        HostTensor::FromFloats(std::vector<float>(static_cast<size_t>(m.width), 1.0f), {m.width});
  }
  node.op_type = "LayerNormalization";
  node.domain.clear();
  node.opset = 17;
  node.since_version = 0;
  node.inputs = {m.x, scale};
  if (!m.bias.empty()) node.inputs.push_back(m.bias);
  node.attributes.clear();
  node.attributes["axis"] = IntAttribute(-1);
  node.attributes["epsilon"] = FloatAttribute(m.epsilon);
  if (m.rms) node.attributes[kLayerNormRmsAttr] = IntAttribute(1);
  node.attributes[kFusedNameAttr] =
      StringAttribute(m.chain + "=" + (m.rms ? "RMSNorm" : "LayerNormalization"));
}

}  // namespace

absl::StatusOr<int> FuseNormalizations(Graph* graph, const ValueShapes& shapes1,
                                       const ValueShapes& shapes3) {
  const GraphUses uses(*graph);
  const NormMatcher matcher(*graph, uses, shapes1, shapes3);
  return AbsorbMatches(
      graph, [&](size_t n) { return matcher.At(n); },
      [&](const NormMatcher::Match& m) { WriteLayerNorm(graph, m); });
}

}  // namespace vkserve
