// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/attention_layout.h"

#include <map>
#include <optional>
#include <string>

#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/graph_uses.h"
#include "runtime/passes/fusion.h"
#include "runtime/plan/planner.h"

namespace vkserve {
namespace {

using Shapes = std::map<std::string, TensorDesc>;

const std::vector<int64_t> kSwapHeads = {0, 2, 1, 3};

class LayoutMatcher {
 public:
  LayoutMatcher(const Graph& graph, const std::vector<const Op*>& ops, const GraphUses& uses,
                const Shapes& s1, const Shapes& s3)
      : graph_(graph), ops_(ops), uses_(uses), s1_(s1), s3_(s3) {}

  struct Match {
    std::string operands[3];  // Q, K, V as [B, S, H*E]
    int64_t heads[3] = {0, 0, 0};
    std::string output;  // the merging Reshape's output, or a new value
    // A Reshape of the merged heads to another shape ([B*S, H*E], say): it
    // stays and reads the Attention's 3-D output.
    std::optional<size_t> feeds;
    // The head-merging Transpose when other nodes read its output for its
    // shape alone (the TorchScript exporter's Shape nodes): it stays, as a
    // Reshape of the 3-D output to [B, S, H, Ev] (no dispatch), so that
    // they still have their value. `split_heads` is {H, Ev}.
    std::optional<size_t> shape_view;
    int64_t split_heads[2] = {0, 0};
    std::vector<size_t> parts;  // the Reshapes and Transposes absorbed
  };

  std::optional<Match> At(size_t a) const {
    const Node& node = graph_.nodes[a];
    if (!node.domain.empty() || node.op_type != "Attention" || node.inputs.size() < 3 ||
        node.inputs.size() > 4 || node.outputs.size() != 1 || node.FindAttribute("q_num_heads") ||
        node.FindAttribute("kv_num_heads")) {
      return std::nullopt;
    }
    Match m;
    for (int i = 0; i < 3; ++i) {
      if (!SplitHeads(node.inputs[static_cast<size_t>(i)], a, &m.operands[i], &m.heads[i],
                      &m.parts)) {
        return std::nullopt;
      }
    }
    if (m.heads[1] != m.heads[2] || !MergeHeads(node.outputs[0], &m)) return std::nullopt;
    return m;
  }

 private:
  // `value` (read by `reader` alone) = Transpose(0,2,1,3) of Reshape(x) with
  // x [B, S, H*E] and the Reshape [B, S, H, E], at both signatures.
  bool SplitHeads(const std::string& value, size_t reader, std::string* x, int64_t* heads,
                  std::vector<size_t>* parts) const {
    std::optional<size_t> t = uses_.SoleProducer(value, reader);
    if (!t || !IsSwap(graph_.nodes[*t])) return false;
    std::optional<size_t> r = uses_.SoleProducer(graph_.nodes[*t].inputs[0], *t);
    if (!r || !IsReshape(graph_.nodes[*r])) return false;
    const std::string& in = graph_.nodes[*r].inputs[0];
    const std::string& split = graph_.nodes[*r].outputs[0];
    for (const Shapes* s : {&s1_, &s3_}) {
      const TensorDesc* a = FindShape(*s, in);
      const TensorDesc* b = FindShape(*s, split);
      if (a == nullptr || b == nullptr || !Splits(a->shape, b->shape)) return false;
      *heads = b->shape[2];
    }
    *x = in;
    parts->insert(parts->end(), {*r, *t});
    return true;
  }

  // The Attention output is read only by Transpose(0,2,1,3), read by a
  // Reshape (and maybe by nodes reading only its shape): to [B, S, H*Ev]
  // (absorbed), or to another shape without zeros (kept, fed the 3-D
  // output: the same bytes in the same order).
  bool MergeHeads(const std::string& y, Match* m) const {
    std::optional<size_t> t = uses_.SoleReader(y);
    if (!t || !IsSwap(graph_.nodes[*t])) return false;
    const std::string& swapped = graph_.nodes[*t].outputs[0];
    if (uses_.IsGraphOutput(swapped)) return false;
    std::optional<size_t> r;
    for (size_t reader : uses_.Readers(swapped)) {
      if (ReadsOnlyShape(graph_.nodes[reader], *ops_[reader], swapped)) {
        m->shape_view = *t;
      } else if (r) {
        return false;  // a second reader of its bytes
      } else {
        r = reader;
      }
    }
    if (!r || !IsReshape(graph_.nodes[*r]) || graph_.nodes[*r].inputs[0] != swapped) return false;
    const std::string& merged = graph_.nodes[*r].outputs[0];
    bool three_d = true;
    for (const Shapes* s : {&s1_, &s3_}) {
      const TensorDesc* a = FindShape(*s, merged);
      const TensorDesc* b = FindShape(*s, swapped);
      if (b == nullptr || b->shape.size() != 4) return false;
      three_d = three_d && a != nullptr && Splits(a->shape, b->shape);
      m->split_heads[0] = b->shape[2];
      m->split_heads[1] = b->shape[3];
    }
    if (!m->shape_view) m->parts.push_back(*t);
    if (three_d) {
      m->output = merged;
      m->parts.push_back(*r);
      return true;
    }
    if (!ZeroFree(graph_.nodes[*r])) return false;
    m->output = swapped + "/heads_merged";
    for (int i = 1; uses_.Producer(m->output) || graph_.initializers.count(m->output); ++i) {
      m->output = swapped + "/heads_merged_" + std::to_string(i);
    }
    m->feeds = *r;
    return true;
  }

  // A Reshape whose shape has no 0 (or reads 0 literally): its result does
  // not depend on its input's rank.
  bool ZeroFree(const Node& reshape) const {
    if (reshape.GetInt("allowzero", 0) != 0) return true;
    auto it = graph_.initializers.find(reshape.inputs[1]);
    if (it == graph_.initializers.end()) return false;
    for (int64_t d : it->second.ToInts()) {
      if (d == 0) return false;
    }
    return true;
  }

  // [B, S, H*E] and [B, S, H, E].
  static bool Splits(const std::vector<int64_t>& flat, const std::vector<int64_t>& split) {
    return flat.size() == 3 && split.size() == 4 && flat[0] == split[0] && flat[1] == split[1] &&
           split[2] > 0 && flat[2] == split[2] * split[3];
  }

  static bool IsSwap(const Node& n) {
    return n.domain.empty() && n.op_type == "Transpose" && n.inputs.size() == 1 &&
           n.outputs.size() == 1 && n.GetInts("perm") == kSwapHeads;
  }

  static bool IsReshape(const Node& n) {
    return n.domain.empty() && n.op_type == "Reshape" && n.inputs.size() == 2 &&
           n.outputs.size() == 1;
  }

  const Graph& graph_;
  const std::vector<const Op*>& ops_;
  const GraphUses& uses_;
  const Shapes& s1_;
  const Shapes& s3_;
};

// Turns the head-merging Transpose `t` into a Reshape of the Attention's
// 3-D output `merged` to [B, S, H, Ev] ({0, 0, H, Ev}: B and S copied), its
// output unchanged: the same shape as before for the nodes reading it for
// its shape, and no dispatch (an alias, and read by nothing on the GPU).
void KeepAsShapeView(const std::string& merged, const int64_t split_heads[2], Node* t,
                     Graph* graph) {
  std::string shape = t->outputs[0] + "/heads_shape";
  for (int i = 1; graph->initializers.count(shape); ++i) {
    shape = t->outputs[0] + "/heads_shape_" + std::to_string(i);
  }
  graph->initializers[shape] = HostTensor::FromInts({0, 0, split_heads[0], split_heads[1]}, {4});
  t->op_type = "Reshape";
  t->domain.clear();
  t->since_version = 0;
  t->inputs = {merged, shape};
  t->attributes.clear();
}

}  // namespace

absl::StatusOr<int> AbsorbAttentionHeadTransposes(Graph* graph, const std::vector<const Op*>& ops,
                                                  const ValueShapes& shapes1,
                                                  const ValueShapes& shapes3) {
  const GraphUses uses(*graph);
  const LayoutMatcher matcher(*graph, ops, uses, shapes1, shapes3);
  std::vector<bool> removed(graph->nodes.size(), false);
  int absorbed = 0;
  for (size_t a = 0; a < graph->nodes.size(); ++a) {
    std::optional<LayoutMatcher::Match> m = matcher.At(a);
    if (!m) continue;
    bool taken = false;
    for (size_t p : m->parts) taken = taken || removed[p];
    if (taken) continue;
    Node& attention = graph->nodes[a];
    for (size_t p : m->parts) {
      removed[p] = true;
      AbsorbInto(graph->nodes[p], &attention);
    }
    for (int i = 0; i < 3; ++i) attention.inputs[static_cast<size_t>(i)] = m->operands[i];
    attention.outputs[0] = m->output;
    if (m->feeds) graph->nodes[*m->feeds].inputs[0] = m->output;
    if (m->shape_view)
      KeepAsShapeView(m->output, m->split_heads, &graph->nodes[*m->shape_view], graph);
    attention.attributes["q_num_heads"] = IntAttribute(m->heads[0]);
    attention.attributes["kv_num_heads"] = IntAttribute(m->heads[1]);
    ++absorbed;
  }
  if (absorbed == 0) return 0;
  EraseNodes(removed, &graph->nodes);
  return absorbed;
}

}  // namespace vkserve
