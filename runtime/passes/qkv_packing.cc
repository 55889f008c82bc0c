// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/qkv_packing.h"

#include <cstring>
#include <map>
#include <optional>
#include <string>

#include "runtime/kernels/attention/flash_attention.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/graph_uses.h"
#include "runtime/passes/fusion.h"
#include "runtime/plan/planner.h"

namespace vkserve {
namespace {

using Shapes = std::map<std::string, TensorDesc>;

// One projection X W (+ b): the MatMul, its optional bias Add, and the
// initializers.
struct Projection {
  size_t matmul = 0;
  std::optional<size_t> add;
  std::string weight, bias;
  int64_t width = 0;
};

class Packer {
 public:
  Packer(Graph* graph, const std::vector<const Op*>& ops, const GraphUses& uses, const Shapes& s1)
      : graph_(graph), ops_(ops), uses_(uses), s1_(s1) {}

  // Packs the Attention node `a` if its operands allow; true when it did.
  bool At(size_t a, std::vector<bool>* removed) {
    Node& node = graph_->nodes[a];
    if (!node.domain.empty() || node.op_type != "Attention" || node.inputs.size() < 3 ||
        node.inputs.size() > 4 || node.outputs.size() != 1 || !node.FindAttribute("q_num_heads") ||
        node.FindAttribute(kAttentionPackedQkvAttr) || !Float3d(node.inputs[0])) {
      return false;
    }
    return FromSplit(a, removed) || FromProjections(a, removed);
  }

  // Only the fused kernel reads packed operands: equal Q and V head sizes
  // up to its limit, no softcap.
  bool FusedKernelServes(const Node& node, const std::vector<int64_t>& widths) const {
    const int64_t q_heads = node.GetInt("q_num_heads", 0),
                  kv_heads = node.GetInt("kv_num_heads", 0);
    if (q_heads <= 0 || kv_heads <= 0 || widths[0] % q_heads != 0 || widths[1] % kv_heads != 0 ||
        widths[2] % kv_heads != 0 || node.GetFloat("softcap", 0.0f) != 0.0f) {
      return false;
    }
    const int64_t eq = widths[0] / q_heads, ek = widths[1] / kv_heads, ev = widths[2] / kv_heads;
    return eq == ek && eq == ev && eq <= kFlashAttentionMaxHeadSize;
  }

 private:
  bool Float3d(const std::string& v) const {
    auto it = s1_.find(v);
    return it != s1_.end() && it->second.dtype == DataType::kFloat && it->second.shape.size() == 3;
  }

  int64_t LastDim(const std::string& v) const { return s1_.at(v).shape.back(); }

  // Q, K, V are the three outputs, in order, of a Split of one tensor along
  // its last axis, read by the Attention alone or else only for their
  // shapes (the TorchScript exporter's Shape of each head's input). With
  // such readers the Split stays for them; the plan then gives it no
  // dispatch, nothing reading its bytes (PlannedNode::Kind::kUnread).
  bool FromSplit(size_t a, std::vector<bool>* removed) {
    Node& node = graph_->nodes[a];
    std::optional<size_t> split = uses_.Producer(node.inputs[0]);
    if (!split) return false;
    const Node& s = graph_->nodes[*split];
    if (!s.domain.empty() || s.op_type != "Split" || s.outputs.size() != 3 || s.inputs.empty() ||
        (*removed)[*split] || !Float3d(s.inputs[0])) {
      return false;
    }
    const int64_t axis = s.GetInt("axis", 0);
    if (axis != -1 && axis != 2) return false;
    bool shapes_read = false;
    for (size_t i = 0; i < 3; ++i) {
      if (s.outputs[i] != node.inputs[i] || uses_.IsGraphOutput(s.outputs[i]) ||
          !Float3d(s.outputs[i])) {
        return false;
      }
      for (size_t r : uses_.Readers(s.outputs[i])) {
        if (r == a) continue;
        if (!ReadsOnlyShape(graph_->nodes[r], *ops_[r], s.outputs[i])) return false;
        shapes_read = true;
      }
    }
    const std::vector<int64_t> widths = {LastDim(s.outputs[0]), LastDim(s.outputs[1]),
                                         LastDim(s.outputs[2])};
    if (!FusedKernelServes(node, widths)) return false;
    Pack(&node, s.inputs[0], widths);
    if (!shapes_read) {
      AbsorbInto(s, &node);
      (*removed)[*split] = true;
    }
    return true;
  }

  // Q, K, V are X Wq (+ bq), X Wk (+ bk), X Wv (+ bv) of one X.
  bool FromProjections(size_t a, std::vector<bool>* removed) {
    Node& node = graph_->nodes[a];
    Projection p[3];
    for (size_t i = 0; i < 3; ++i) {
      std::optional<Projection> got = ProjectionOf(node.inputs[i], a);
      if (!got || (*removed)[got->matmul] || (got->add && (*removed)[*got->add])) return false;
      p[i] = *got;
    }
    const std::string& x = graph_->nodes[p[0].matmul].inputs[0];
    for (size_t i = 1; i < 3; ++i) {
      if (graph_->nodes[p[i].matmul].inputs[0] != x || p[i].add.has_value() != p[0].add.has_value())
        return false;
    }
    if (!FusedKernelServes(node, {p[0].width, p[1].width, p[2].width})) return false;
    const std::string packed_w = Concatenate({p[0].weight, p[1].weight, p[2].weight}, "qkv_weight");
    // The first projection's nodes compute the packed one; the others go.
    Node& mm = graph_->nodes[p[0].matmul];
    mm.inputs[1] = packed_w;
    std::string packed = mm.outputs[0];
    if (p[0].add) {
      Node& add = graph_->nodes[*p[0].add];
      const std::string packed_b = Concatenate({p[0].bias, p[1].bias, p[2].bias}, "qkv_bias");
      add.inputs = {mm.outputs[0], packed_b};
      packed = add.outputs[0];
    }
    for (size_t i = 1; i < 3; ++i) {
      for (std::optional<size_t> n : {std::optional<size_t>(p[i].matmul), p[i].add}) {
        if (!n) continue;
        AbsorbInto(graph_->nodes[*n], &mm);
        (*removed)[*n] = true;
      }
    }
    Pack(&node, packed, {p[0].width, p[1].width, p[2].width});
    return true;
  }

  // `value`, read by `reader` alone: MatMul(X, W) or Add(MatMul(X, W), b)
  // with W a float initializer [E, n] and b one of [n].
  std::optional<Projection> ProjectionOf(const std::string& value, size_t reader) const {
    Projection p;
    std::optional<size_t> n = uses_.SoleProducer(value, reader);
    if (!n) return std::nullopt;
    const Node* node = &graph_->nodes[*n];
    if (IsPlainNode(*node, "Add") && node->inputs.size() == 2) {
      p.add = *n;
      const int side = Initializer(node->inputs[1], 1)   ? 1
                       : Initializer(node->inputs[0], 1) ? 0
                                                         : -1;
      if (side < 0) return std::nullopt;
      p.bias = node->inputs[side];
      n = uses_.SoleProducer(node->inputs[1 - side], *n);
      if (!n) return std::nullopt;
      node = &graph_->nodes[*n];
    }
    if (!IsPlainNode(*node, "MatMul") || node->inputs.size() != 2 ||
        !Initializer(node->inputs[1], 2) || !Float3d(node->inputs[0])) {
      return std::nullopt;
    }
    p.matmul = *n;
    p.weight = node->inputs[1];
    const std::vector<int64_t>& w = graph_->initializers.at(p.weight).shape;
    p.width = w[1];
    if (w[0] != LastDim(node->inputs[0])) return std::nullopt;
    if (p.add && graph_->initializers.at(p.bias).shape != std::vector<int64_t>{p.width})
      return std::nullopt;
    return p;
  }

  bool Initializer(const std::string& name, size_t rank) const {
    auto it = graph_->initializers.find(name);
    return it != graph_->initializers.end() && it->second.dtype == DataType::kFloat &&
           it->second.shape.size() == rank;
  }

  // A new initializer: the given ones side by side along their last axis
  // (rows of [E, n] matrices, or [n] vectors end to end).
  std::string Concatenate(const std::vector<std::string>& parts, const std::string& what) {
    const HostTensor& first = graph_->initializers.at(parts[0]);
    const int64_t rows = first.shape.size() == 2 ? first.shape[0] : 1;
    int64_t width = 0;
    for (const std::string& p : parts) width += graph_->initializers.at(p).shape.back();
    std::vector<float> out(static_cast<size_t>(rows * width));
    int64_t at = 0;
    for (const std::string& p : parts) {
      const HostTensor& t = graph_->initializers.at(p);
      const int64_t n = t.shape.back();
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < n; ++c) {
          out[static_cast<size_t>(r * width + at + c)] = static_cast<float>(t.GetDouble(r * n + c));
        }
      }
      at += n;
    }
    std::string name = parts[0] + "/" + what;
    for (int i = 1; graph_->initializers.count(name); ++i)
      name = parts[0] + "/" + what + "_" + std::to_string(i);
    std::vector<int64_t> shape = first.shape;
    shape.back() = width;
    graph_->initializers[name] = HostTensor::FromFloats(out, shape);
    return name;
  }

  static void Pack(Node* node, const std::string& packed, const std::vector<int64_t>& widths) {
    node->inputs[0] = packed;
    node->inputs[1].clear();
    node->inputs[2].clear();
    node->attributes[kAttentionPackedQkvAttr] = IntsAttribute(widths);
    // inspect tells packed attention apart: "...=Attention(QKV packed)".
    node->attributes[kFusedNameAttr] = StringAttribute(FusedOpName(*node) + "(QKV packed)");
  }

  Graph* graph_;
  const std::vector<const Op*>& ops_;
  const GraphUses& uses_;
  const Shapes& s1_;
};

}  // namespace

absl::StatusOr<int> PackQkv(Graph* graph, const std::vector<const Op*>& ops,
                            const ValueShapes& shapes1) {
  const GraphUses uses(*graph);
  Packer packer(graph, ops, uses, shapes1);
  std::vector<bool> removed(graph->nodes.size(), false);
  int packed = 0;
  for (size_t a = 0; a < graph->nodes.size(); ++a) {
    if (packer.At(a, &removed)) ++packed;
  }
  if (packed == 0) return 0;
  EraseNodes(removed, &graph->nodes);
  return packed;
}

}  // namespace vkserve
