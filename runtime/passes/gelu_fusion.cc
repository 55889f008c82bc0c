// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/gelu_fusion.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/graph_uses.h"
#include "runtime/passes/absorb_matches.h"
#include "runtime/passes/fusion.h"

namespace vkserve {
namespace {

constexpr float kSqrt2 = 1.41421356237f;
constexpr float kSqrt2OverPi = 0.79788456080f;
constexpr float kCubicCoefficient = 0.044715f;

bool Near(float c, float want) { return std::fabs(c - want) <= 1e-4f * std::fabs(want); }

class GeluMatcher {
 public:
  GeluMatcher(const Graph& graph, const GraphUses& uses) : graph_(graph), uses_(uses) {}

  struct Match {
    std::string x;
    bool tanh = false;
    size_t last = 0;            // the final Mul: becomes the Gelu node
    std::vector<size_t> parts;  // every other node of the pattern
    std::string chain;          // the matched op types, in graph order
  };

  // The GELU around the Erf or Tanh node `n`, or nullopt.
  std::optional<Match> At(size_t n) const {
    const Node& node = graph_.nodes[n];
    Match m;
    if (IsPlainNode(node, "Erf") && node.inputs.size() == 1) {
      if (!ErfArgument(node.inputs[0], n, &m)) return std::nullopt;
    } else if (IsPlainNode(node, "Tanh") && node.inputs.size() == 1) {
      if (!TanhArgument(node.inputs[0], n, &m)) return std::nullopt;
      m.tanh = true;
    } else {
      return std::nullopt;
    }
    m.parts.push_back(n);
    m.chain += node.op_type;
    if (!Tail(n, &m)) return std::nullopt;
    return m;
  }

 private:
  // The producer of `value` (read only by `reader`) when it is a plain
  // binary `type` node with a float scalar constant operand; sets the other
  // operand and the constant.
  std::optional<size_t> WithConstant(const std::string& value, size_t reader, const char* type,
                                     std::string* other, float* c) const {
    std::optional<size_t> p = uses_.SoleProducer(value, reader);
    if (!p) return std::nullopt;
    const Node& node = graph_.nodes[*p];
    if (!IsPlainNode(node, type) || node.inputs.size() != 2) return std::nullopt;
    // Div's constant is its divisor; Add and Mul commute.
    const int first = std::string(type) == "Div" ? 1 : 0;
    for (int side = first; side < 2; ++side) {
      if (std::optional<float> k = FloatScalarInitializer(graph_, node.inputs[side])) {
        *c = *k;
        *other = node.inputs[1 - side];
        return p;
      }
    }
    return std::nullopt;
  }

  // The float scalar constant node `n`, a plain binary `type`, combines
  // with `operand`.
  std::optional<float> OtherConstant(size_t n, const char* type, const std::string& operand) const {
    const Node& node = graph_.nodes[n];
    if (!IsPlainNode(node, type) || node.inputs.size() != 2) return std::nullopt;
    if (node.inputs[0] == operand) return FloatScalarInitializer(graph_, node.inputs[1]);
    if (node.inputs[1] == operand) return FloatScalarInitializer(graph_, node.inputs[0]);
    return std::nullopt;
  }

  // Erf's argument x / sqrt(2) or x * (1 / sqrt(2)).
  bool ErfArgument(const std::string& arg, size_t erf, Match* m) const {
    float c = 0;
    if (std::optional<size_t> d = WithConstant(arg, erf, "Div", &m->x, &c); d && Near(c, kSqrt2)) {
      m->parts.push_back(*d);
      m->chain = "Div+";
      return true;
    }
    if (std::optional<size_t> d = WithConstant(arg, erf, "Mul", &m->x, &c);
        d && Near(c, 1 / kSqrt2)) {
      m->parts.push_back(*d);
      m->chain = "Mul+";
      return true;
    }
    return false;
  }

  // Tanh's argument sqrt(2/pi) * (x + 0.044715 * x^3).
  bool TanhArgument(const std::string& arg, size_t tanh, Match* m) const {
    std::string inner;
    float c = 0;
    std::optional<size_t> scale = WithConstant(arg, tanh, "Mul", &inner, &c);
    if (!scale || !Near(c, kSqrt2OverPi)) return false;
    std::optional<size_t> sum = uses_.SoleProducer(inner, *scale);
    if (!sum || !IsPlainNode(graph_.nodes[*sum], "Add") || graph_.nodes[*sum].inputs.size() != 2) {
      return false;
    }
    const Node& add = graph_.nodes[*sum];
    for (int side = 0; side < 2; ++side) {
      const std::string& x = add.inputs[1 - side];
      std::string cube;
      std::optional<size_t> term = WithConstant(add.inputs[side], *sum, "Mul", &cube, &c);
      if (!term || !Near(c, kCubicCoefficient)) continue;
      std::vector<size_t> cube_nodes;
      std::string cube_chain;
      if (!IsCube(cube, x, *term, &cube_nodes, &cube_chain)) continue;
      m->x = x;
      m->parts.insert(m->parts.end(), cube_nodes.begin(), cube_nodes.end());
      m->parts.insert(m->parts.end(), {*term, *sum, *scale});
      m->chain = cube_chain + "Mul+Add+Mul+";
      return true;
    }
    return false;
  }

  // `value` (read only by `reader`) is x^3: Pow(x, 3), or a Mul of x and
  // x * x (its own x * x read only by it).
  bool IsCube(const std::string& value, const std::string& x, size_t reader,
              std::vector<size_t>* nodes, std::string* chain) const {
    std::optional<size_t> p = uses_.SoleProducer(value, reader);
    if (!p) return false;
    const Node& n = graph_.nodes[*p];
    if (IsPlainNode(n, "Pow") && n.inputs.size() == 2 && n.inputs[0] == x) {
      // The exponent may be of any numeric type.
      auto e = graph_.initializers.find(n.inputs[1]);
      if (e == graph_.initializers.end() || e->second.num_elements() != 1 ||
          e->second.dtype == DataType::kString || e->second.GetDouble(0) != 3.0) {
        return false;
      }
      nodes->push_back(*p);
      *chain = "Pow+";
      return true;
    }
    if (!IsPlainNode(n, "Mul") || n.inputs.size() != 2) return false;
    for (int side = 0; side < 2; ++side) {
      if (n.inputs[1 - side] != x) continue;
      std::optional<size_t> sq = uses_.SoleProducer(n.inputs[side], *p);
      if (sq && IsPlainNode(graph_.nodes[*sq], "Mul") && graph_.nodes[*sq].inputs.size() == 2 &&
          graph_.nodes[*sq].inputs[0] == x && graph_.nodes[*sq].inputs[1] == x) {
        nodes->insert(nodes->end(), {*sq, *p});
        *chain = "Mul+Mul+";
        return true;
      }
    }
    return false;
  }

  // After Erf/Tanh node `f`: Add 1, then the product with x and 0.5.
  bool Tail(size_t f, Match* m) const {
    float c = 0;
    std::optional<size_t> add = uses_.SoleReader(graph_.nodes[f].outputs[0]);
    std::optional<float> one =
        add ? OtherConstant(*add, "Add", graph_.nodes[f].outputs[0]) : std::nullopt;
    if (!one || !Near(*one, 1.0f)) return false;
    m->parts.push_back(*add);
    m->chain += "+Add";
    const std::string bracket = graph_.nodes[*add].outputs[0];
    std::optional<size_t> m1 = uses_.SoleReader(bracket);
    if (!m1 || !IsPlainNode(graph_.nodes[*m1], "Mul") || graph_.nodes[*m1].inputs.size() != 2) {
      return false;
    }
    const Node& first = graph_.nodes[*m1];
    const std::string& rest = first.inputs[0] == bracket ? first.inputs[1] : first.inputs[0];
    // bracket * (x * 0.5), the half-x computed first.
    std::string half_of;
    if (std::optional<size_t> h = WithConstant(rest, *m1, "Mul", &half_of, &c);
        h && half_of == m->x && Near(c, 0.5f)) {
      m->parts.push_back(*h);
      m->last = *m1;
      m->chain = "Mul+" + m->chain + "+Mul";
      return true;
    }
    // (bracket * x) * 0.5 or (bracket * 0.5) * x.
    std::optional<float> half = FloatScalarInitializer(graph_, rest);
    if (rest != m->x && !(half && Near(*half, 0.5f))) return false;
    std::optional<size_t> m2 = uses_.SoleReader(first.outputs[0]);
    if (!m2 || !IsPlainNode(graph_.nodes[*m2], "Mul") || graph_.nodes[*m2].inputs.size() != 2) {
      return false;
    }
    const Node& second = graph_.nodes[*m2];
    const std::string& last =
        second.inputs[0] == first.outputs[0] ? second.inputs[1] : second.inputs[0];
    std::optional<float> last_half = FloatScalarInitializer(graph_, last);
    const bool ok = rest == m->x ? last_half && Near(*last_half, 0.5f) : last == m->x;
    if (!ok) return false;
    m->parts.push_back(*m1);
    m->last = *m2;
    m->chain += "+Mul+Mul";
    return true;
  }

  const Graph& graph_;
  const GraphUses& uses_;
};

void WriteGelu(const GeluMatcher::Match& m, Node* node) {
  node->op_type = "Gelu";
  node->domain.clear();
  node->opset = 20;
  node->since_version = 0;
  node->inputs = {m.x};
  node->attributes.clear();
  if (m.tanh) node->attributes["approximate"] = StringAttribute("tanh");
  node->attributes[kFusedNameAttr] = StringAttribute(m.chain + "=Gelu");
}

}  // namespace

int FuseGelu(Graph* graph) {
  const GraphUses uses(*graph);
  const GeluMatcher matcher(*graph, uses);
  return AbsorbMatches(
      graph, [&](size_t n) { return matcher.At(n); },
      [&](const GeluMatcher::Match& m) { WriteGelu(m, &graph->nodes[m.last]); });
}

}  // namespace vkserve
