// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/attention_fusion.h"

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "runtime/kernels/attention/attention_choice.h"
#include "runtime/kernels/attention/flash_attention.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/graph_uses.h"
#include "runtime/ops/math/mat_mul.h"
#include "runtime/passes/fusion.h"
#include "runtime/plan/planner.h"

namespace vkserve {
namespace {

using Shapes = std::map<std::string, TensorDesc>;

class Matcher {
 public:
  Matcher(const Graph& graph, const GraphUses& uses, const Shapes& s1, const Shapes& s3)
      : graph_(graph), uses_(uses), s1_(s1), s3_(s3) {}

  // A fusion ending at the MatMul `mm2`, or nullopt.
  struct Match {
    size_t mm1 = 0, scale_node = 0, mask_node = 0, softmax = 0, mm2 = 0;
    bool has_scale = false, has_mask = false;
    bool empty_rows_zero = false;  // the NaN guard after the softmax was fused
    bool kt_is_k = false;          // the first MatMul transposes its B: kt is K
    std::vector<size_t> absorbed;  // operand scales, the NaN guard's nodes
    std::string q, kt, v, mask;
    float scale = 1.0f;
    std::string name;
    std::optional<Attribute> pin;  // the Softmax's kAttentionKernelAttr, carried over
  };

  std::optional<Match> At(size_t mm2) const {
    const std::vector<Node>& nodes = graph_.nodes;
    Match m;
    m.mm2 = mm2;
    const Node& out = nodes[mm2];
    if (!Is(out, "MatMul") || out.inputs.size() != 2) return std::nullopt;
    std::optional<size_t> sm = SoleProducer(out.inputs[0], mm2);
    std::string chain = "Softmax+MatMul";
    if (sm && Is(nodes[*sm], "Where")) {
      sm = NanGuard(*sm, &m);
      chain = "Softmax+IsNaN+Where+MatMul";
    }
    if (!sm || !Is(nodes[*sm], "Softmax") || nodes[*sm].inputs.size() != 1 ||
        !SoftmaxOnLastAxis(nodes[*sm])) {
      return std::nullopt;
    }
    m.softmax = *sm;
    if (const Attribute* pin = nodes[*sm].FindAttribute(kAttentionKernelAttr)) m.pin = *pin;
    m.v = out.inputs[1];
    std::string scores = nodes[*sm].inputs[0];
    std::optional<size_t> at = SoleProducer(scores, *sm);
    if (!at) return std::nullopt;
    if (Is(nodes[*at], "Add") && nodes[*at].inputs.size() == 2) {
      const Node& add = nodes[*at];
      // The scores are the side a MatMul (through an optional scale) makes.
      for (int side = 0; side < 2 && !m.has_mask; ++side) {
        std::optional<size_t> p = SoleProducer(add.inputs[side], *at);
        const std::string& type = p ? nodes[*p].op_type : std::string();
        if (p && nodes[*p].domain.empty() && (type == "MatMul" || type == "Div" || type == "Mul")) {
          m.has_mask = true;
          m.mask = add.inputs[1 - side];
          scores = add.inputs[side];
        }
      }
      if (!m.has_mask || !IsFloat(m.mask)) return std::nullopt;
      chain = "Add+" + chain;
    } else if (Is(nodes[*at], "Where") && nodes[*at].inputs.size() == 3) {
      const Node& where = nodes[*at];
      std::optional<float> fill = ScalarConstant(where.inputs[2]);
      if (!fill || *fill > -1e4f || !IsBool(where.inputs[0])) return std::nullopt;
      m.has_mask = true;
      m.mask = where.inputs[0];
      scores = where.inputs[1];
      chain = "Where+" + chain;
    }
    if (m.has_mask) {
      m.mask_node = *at;
      at = SoleProducer(scores, *at);
      if (!at) return std::nullopt;
    }
    if ((Is(nodes[*at], "Div") || Is(nodes[*at], "Mul")) && nodes[*at].inputs.size() == 2) {
      std::optional<float> c = ScalarConstant(nodes[*at].inputs[1]);
      if (!c || *c == 0.0f || !std::isfinite(*c)) return std::nullopt;
      m.has_scale = true;
      m.scale *= Is(nodes[*at], "Div") ? 1.0f / *c : *c;
      m.scale_node = *at;
      chain = nodes[*at].op_type + "+" + chain;
      at = SoleProducer(nodes[*at].inputs[0], *at);
      if (!at) return std::nullopt;
    }
    if (!FirstMatMul(nodes[*at], &m)) return std::nullopt;
    m.mm1 = *at;
    m.q = nodes[*at].inputs[0];
    m.kt = nodes[*at].inputs[1];
    // The dynamo exporter scales both operands by sqrt(scale).
    for (std::string* operand : {&m.q, &m.kt}) {
      std::optional<size_t> p = SoleProducer(*operand, m.mm1);
      if (!p || !Is(nodes[*p], "Mul") || nodes[*p].inputs.size() != 2) continue;
      std::optional<float> c = ScalarConstant(nodes[*p].inputs[1]);
      if (!c || !std::isfinite(*c) || *c == 0.0f) continue;
      m.scale *= *c;
      m.absorbed.push_back(*p);
      *operand = nodes[*p].inputs[0];
      chain = "Mul+" + chain;  // (it precedes the MatMul)
    }
    m.name = "MatMul+" + chain + "=Attention";
    if (!ShapesFit(m)) return std::nullopt;
    return m;
  }

 private:
  // A plain ONNX `type` node: no attributes but Softmax's axis and the pin
  // of the fused node's kernel (a rewritten MatMul may carry an epilogue,
  // e.g. FusedMatMul's alpha, as attributes).
  static bool Is(const Node& n, const char* type) {
    if (!n.domain.empty() || n.op_type != type) return false;
    for (const auto& [name, value] : n.attributes) {
      if (!(n.op_type == "Softmax" && (name == "axis" || name == kAttentionKernelAttr)))
        return false;
    }
    return true;
  }

  // Q K': a plain MatMul, or one that ONNX Runtime's FusedMatMul became
  // (runtime/ops/math/mat_mul.h) with B transposed (then its B is K itself) and
  // a scale.
  static bool FirstMatMul(const Node& n, Match* m) {
    if (!n.domain.empty() || n.op_type != "MatMul" || n.inputs.size() != 2) return false;
    for (const auto& [name, value] : n.attributes) {
      if (name == kMatMulTransBAttr && value.type == Attribute::Type::kInt && value.i == 1) {
        m->kt_is_k = true;
      } else if (name == kMatMulScaleAttr && value.type == Attribute::Type::kFloat &&
                 std::isfinite(value.f)) {
        m->scale *= value.f;
      } else {
        return false;
      }
    }
    return true;
  }

  // Where(IsNaN(P), 0, P) at node `where` (the exporters' guard for rows
  // that see no key): P's producer, with the guard's nodes recorded in `m`;
  // nullopt when it is not that.
  std::optional<size_t> NanGuard(size_t where, Match* m) const {
    const Node& w = graph_.nodes[where];
    if (w.inputs.size() != 3) return std::nullopt;
    std::optional<float> zero = ScalarConstant(w.inputs[1]);
    std::optional<size_t> isnan = uses_.Producer(w.inputs[0]);
    std::optional<size_t> p = uses_.Producer(w.inputs[2]);
    if (!zero || *zero != 0.0f || !isnan || !p) return std::nullopt;
    const Node& n = graph_.nodes[*isnan];
    if (!Is(n, "IsNaN") || n.inputs.size() != 1 || n.inputs[0] != w.inputs[2] ||
        SoleProducer(w.inputs[0], where) != isnan) {
      return std::nullopt;
    }
    // P read by the guard alone.
    const std::vector<size_t>& readers = uses_.Readers(w.inputs[2]);
    if (uses_.IsGraphOutput(w.inputs[2]) || readers.size() != 2 ||
        graph_.nodes[*p].outputs.size() != 1) {
      return std::nullopt;
    }
    for (size_t r : readers) {
      if (r != where && r != *isnan) return std::nullopt;
    }
    m->empty_rows_zero = true;
    m->absorbed.push_back(*isnan);
    m->absorbed.push_back(where);
    return p;
  }

  std::optional<size_t> SoleProducer(const std::string& value, size_t reader) const {
    return uses_.SoleProducer(value, reader);
  }

  bool SoftmaxOnLastAxis(const Node& n) const {
    auto s = s1_.find(n.inputs[0]);
    if (s == s1_.end()) return false;
    const int64_t rank = static_cast<int64_t>(s->second.shape.size());
    int64_t axis = n.GetInt("axis", n.opset >= 13 ? -1 : 1);
    if (axis < 0) axis += rank;
    return rank > 0 && axis == rank - 1;
  }

  // Folded values count: the TorchScript exporter computes the operand
  // scales from Q's shape.
  std::optional<float> ScalarConstant(const std::string& name) const {
    return FloatScalarAtLoad(graph_, s1_, s3_, name);
  }

  bool IsFloat(const std::string& v) const {
    auto s = s1_.find(v);
    return s != s1_.end() && s->second.dtype == DataType::kFloat;
  }
  bool IsBool(const std::string& v) const {
    auto s = s1_.find(v);
    return s != s1_.end() && s->second.dtype == DataType::kBool;
  }

  // Q [.., S, E], Kt [.., E, T], V [.., T, Ev] with equal leading dims of
  // rank 1 or 2, fp32; the mask broadcasts to [.., S, T] without
  // broadcasting its last dim; at both signatures.
  bool ShapesFit(const Match& m) const {
    for (const Shapes* s : {&s1_, &s3_}) {
      auto get = [&](const std::string& v) -> const TensorDesc* {
        auto it = s->find(v);
        return it == s->end() ? nullptr : &it->second;
      };
      const TensorDesc* q = get(m.q);
      const TensorDesc* kt = get(m.kt);
      const TensorDesc* v = get(m.v);
      if (q == nullptr || kt == nullptr || v == nullptr) return false;
      const size_t rank = q->shape.size();
      if ((rank != 3 && rank != 4) || kt->shape.size() != rank || v->shape.size() != rank)
        return false;
      for (const TensorDesc* t : {q, kt, v}) {
        if (t->dtype != DataType::kFloat) return false;
      }
      for (size_t d = 0; d + 2 < rank; ++d) {
        if (kt->shape[d] != q->shape[d] || v->shape[d] != q->shape[d]) return false;
      }
      const int64_t t = kt->shape[rank - (m.kt_is_k ? 2 : 1)];
      const int64_t e = kt->shape[rank - (m.kt_is_k ? 1 : 2)];
      if (q->shape[rank - 1] != e || v->shape[rank - 2] != t || t == 0) return false;
      // Only the fused kernel computes the guard's zeros.
      if (m.empty_rows_zero && (v->shape[rank - 1] != q->shape[rank - 1] ||
                                q->shape[rank - 1] > kFlashAttentionMaxHeadSize)) {
        return false;
      }
      if (m.has_mask) {
        const TensorDesc* mask = get(m.mask);
        // 3-D attention runs as one head: a mask may not name the batch.
        const size_t max_rank = rank == 3 ? 2 : 4;
        if (mask == nullptr || mask->shape.empty() || mask->shape.size() > max_rank ||
            mask->shape.back() != t) {
          return false;
        }
        const std::vector<int64_t> full = {rank == 4 ? q->shape[0] : 1, rank == 4 ? q->shape[1] : 1,
                                           q->shape[rank - 2], t};
        const size_t offset = 4 - mask->shape.size();
        for (size_t d = 0; d < mask->shape.size(); ++d) {
          if (mask->shape[d] != 1 && mask->shape[d] != full[offset + d]) return false;
        }
      }
    }
    return true;
  }

  const Graph& graph_;
  const GraphUses& uses_;
  const Shapes& s1_;
  const Shapes& s3_;
};

// K for the Attention node from the match's Kt: Kt itself when the first
// MatMul transposed its B; else Kt's own sole-reader Transpose composed with
// the swap of the last two axes (dropped when that is the identity); else a
// new Transpose of Kt where the first MatMul was. Marks what goes in
// `removed`.
std::string KFromKt(std::vector<Node>& nodes, const GraphUses& uses, const Matcher::Match& m,
                    size_t rank, std::vector<bool>* removed) {
  std::vector<int64_t> swap(rank);
  for (size_t d = 0; d < rank; ++d) swap[d] = static_cast<int64_t>(d);
  std::swap(swap[rank - 1], swap[rank - 2]);
  if (m.kt_is_k) {
    (*removed)[m.mm1] = true;
    return m.kt;
  }
  std::optional<size_t> producer = uses.Producer(m.kt);
  if (producer && uses.SoleReader(m.kt) && nodes[*producer].domain.empty() &&
      nodes[*producer].op_type == "Transpose" && nodes[*producer].inputs.size() == 1 &&
      nodes[*producer].GetInts("perm").size() == rank) {
    Node& t = nodes[*producer];
    const std::vector<int64_t> perm = t.GetInts("perm");
    std::vector<int64_t> composed(rank);
    bool identity = true;
    for (size_t d = 0; d < rank; ++d) {
      composed[d] = perm[static_cast<size_t>(swap[d])];
      identity = identity && composed[d] == static_cast<int64_t>(d);
    }
    (*removed)[m.mm1] = true;
    if (identity) {  // Kt = Transpose(K): K itself
      (*removed)[*producer] = true;
      AbsorbInto(t, &nodes[m.mm2]);
      return t.inputs[0];
    }
    t.attributes["perm"].ints = composed;
    return m.kt;
  }
  Node& mm1 = nodes[m.mm1];
  Node t;
  t.name = mm1.name + "/attention_k";
  t.op_type = "Transpose";
  t.opset = 13;
  t.inputs = {m.kt};
  t.outputs = {m.kt + "/attention_k"};
  t.attributes["perm"] = IntsAttribute(swap);
  t.rewritten_from = mm1.rewritten_from;
  mm1 = std::move(t);
  return mm1.outputs[0];
}

// Turns the second MatMul `a` into the Attention node (name and output kept).
void WriteAttention(const Matcher::Match& m, const std::string& k, size_t rank, Node* a) {
  a->op_type = "Attention";
  a->domain.clear();
  a->opset = 23;
  a->since_version = 0;
  a->inputs = {m.q, k, m.v};
  if (m.has_mask) a->inputs.push_back(m.mask);
  a->attributes.clear();
  if (rank == 3) {  // [B, S, E] is one head of [B, S, 1 * E]
    a->attributes["q_num_heads"] = IntAttribute(1);
    a->attributes["kv_num_heads"] = IntAttribute(1);
  }
  a->attributes["scale"] = FloatAttribute(m.scale);
  a->attributes[kFusedNameAttr] = StringAttribute(m.name);
  if (m.empty_rows_zero) a->attributes[kAttentionEmptyRowsZeroAttr] = IntAttribute(1);
  if (m.pin) a->attributes[kAttentionKernelAttr] = *m.pin;
}

}  // namespace

absl::StatusOr<int> FuseAttention(Graph* graph, const ValueShapes& shapes1,
                                  const ValueShapes& shapes3) {
  std::vector<Node>& nodes = graph->nodes;
  const GraphUses uses(*graph);

  Matcher matcher(*graph, uses, shapes1, shapes3);
  std::vector<bool> removed(nodes.size(), false);
  int fused = 0;
  for (size_t n = 0; n < nodes.size(); ++n) {
    std::optional<Matcher::Match> m = matcher.At(n);
    if (!m) continue;
    std::vector<size_t> parts = m->absorbed;
    parts.insert(parts.end(), {m->mm1, m->softmax});
    if (m->has_scale) parts.push_back(m->scale_node);
    if (m->has_mask) parts.push_back(m->mask_node);
    bool taken = false;
    for (size_t p : parts) taken = taken || removed[p];
    if (taken) continue;
    const size_t rank = shapes1.at(m->q).shape.size();
    // Before KFromKt, which may turn the first MatMul into K's Transpose.
    for (size_t p : parts) AbsorbInto(nodes[p], &nodes[m->mm2]);
    const std::string k = KFromKt(nodes, uses, *m, rank, &removed);
    for (size_t p : parts) {
      if (p != m->mm1) removed[p] = true;
    }
    WriteAttention(*m, k, rank, &nodes[m->mm2]);
    ++fused;
  }
  if (fused == 0) return 0;
  EraseNodes(removed, &nodes);
  return fused;
}

}  // namespace vkserve
