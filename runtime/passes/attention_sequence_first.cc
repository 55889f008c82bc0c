// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/attention_sequence_first.h"

#include <optional>
#include <set>
#include <string>

#include "runtime/kernels/attention/flash_attention.h"
#include "runtime/lowering/rewrite_attributes.h"
#include "runtime/op/graph_uses.h"
#include "runtime/op/strided_view.h"
#include "runtime/passes/fusion.h"

namespace vkserve {
namespace {

const std::vector<int64_t> kMergeHeads = {2, 0, 1, 3};

// An operand as a [N, H, S, E] view of a [S, N, W] root at column `offset`.
struct SequenceFirstOperand {
  std::string root;
  int64_t heads = 0, head = 0, width = 0, offset = 0;
  std::vector<size_t> moved;  // the movement nodes between root and operand
};

// Equal where the dim is not 1: a dim of one element has no meaningful stride.
bool StridesFit(const StridedView& v, const std::vector<int64_t>& want) {
  for (size_t d = 0; d < want.size(); ++d) {
    if (v.shape[d] != 1 && v.strides[d] != want[d]) return false;
  }
  return true;
}

// `view` at one signature as an SequenceFirstOperand of the 3-D float root `root`.
std::optional<SequenceFirstOperand> Fit(const StridedView& view, const TensorDesc& root) {
  if (root.dtype != DataType::kFloat || root.shape.size() != 3 || view.shape.size() != 4)
    return std::nullopt;
  const int64_t s = root.shape[0], n = root.shape[1], w = root.shape[2];
  const int64_t h = view.shape[1], e = view.shape[3];
  if (view.shape[0] != n || view.shape[2] != s || h <= 0 || e <= 0 ||
      !StridesFit(view, {w, e, n * w, 1}) || view.offset < 0 || view.offset + h * e > w) {
    return std::nullopt;
  }
  SequenceFirstOperand o;
  o.heads = h;
  o.head = e;
  o.width = w;
  o.offset = view.offset;
  return o;
}

// The farthest value along `value`'s movement chain that it is a
// sequence-first view of, at both signatures.
std::optional<SequenceFirstOperand> OperandOf(const Graph& graph, const GraphUses& uses,
                                              const std::string& value, const ValueShapes& s1,
                                              const ValueShapes& s3) {
  const MovementChain chain = MovementChainOf(graph, uses, value, s1);
  for (size_t depth = chain.nodes.size(); depth-- > 0;) {
    std::optional<SequenceFirstOperand> found;
    for (const ValueShapes* s : {&s1, &s3}) {
      const std::optional<StridedView> view = ViewInRoot(graph, chain, depth, *s);
      const TensorDesc* root = FindShape(*s, chain.roots[depth]);
      std::optional<SequenceFirstOperand> o = view && root ? Fit(*view, *root) : std::nullopt;
      if (!o || (found && (o->heads != found->heads || o->head != found->head ||
                           o->width != found->width || o->offset != found->offset))) {
        found.reset();
        break;
      }
      found = o;
    }
    if (!found) continue;
    found->root = chain.roots[depth];
    found->moved.assign(chain.nodes.begin(), chain.nodes.begin() + static_cast<long>(depth) + 1);
    return found;
  }
  return std::nullopt;
}

struct SequenceFirstMatch {
  SequenceFirstOperand operands[3];
  bool packed = false;
  size_t merge = 0;  // the head-merging Transpose
};

std::optional<SequenceFirstMatch> MatchAt(const Graph& graph, const GraphUses& uses, size_t a,
                                          const ValueShapes& s1, const ValueShapes& s3) {
  const Node& node = graph.nodes[a];
  if (!node.domain.empty() || node.op_type != "Attention" || node.inputs.size() < 3 ||
      node.inputs.size() > 4 || node.outputs.size() != 1 || node.FindAttribute("q_num_heads") ||
      node.FindAttribute("kv_num_heads") || node.FindAttribute(kAttentionPackedQkvAttr) ||
      node.GetFloat("softcap", 0.0f) != 0.0f) {
    return std::nullopt;
  }
  SequenceFirstMatch m;
  for (size_t i = 0; i < 3; ++i) {
    std::optional<SequenceFirstOperand> o = OperandOf(graph, uses, node.inputs[i], s1, s3);
    if (!o) return std::nullopt;
    m.operands[i] = *o;
  }
  const SequenceFirstOperand &q = m.operands[0], &k = m.operands[1], &v = m.operands[2];
  if (k.heads != v.heads || q.head != k.head) return std::nullopt;
  m.packed = q.root == k.root && k.root == v.root;
  if (m.packed) {
    // Q, K, V side by side in that order, filling each row; only the fused
    // kernel reads packed operands.
    const int64_t wq = q.heads * q.head, wk = k.heads * k.head, wv = v.heads * v.head;
    if (q.offset != 0 || k.offset != wq || v.offset != wq + wk || wq + wk + wv != q.width ||
        v.head != q.head || q.head > kFlashAttentionMaxHeadSize) {
      return std::nullopt;
    }
  } else {
    for (const SequenceFirstOperand& o : m.operands) {
      if (o.offset != 0 || o.heads * o.head != o.width) return std::nullopt;
    }
  }
  std::optional<size_t> t = uses.SoleReader(node.outputs[0]);
  if (!t) return std::nullopt;
  const Node& merge = graph.nodes[*t];
  if (!merge.domain.empty() || merge.op_type != "Transpose" || merge.outputs.size() != 1 ||
      merge.GetInts("perm") != kMergeHeads) {
    return std::nullopt;
  }
  m.merge = *t;
  return m;
}

void RewriteToSequenceFirst(const SequenceFirstMatch& m, const GraphUses& uses, size_t a,
                            Graph* graph) {
  Node& node = graph->nodes[a];
  const SequenceFirstOperand &q = m.operands[0], &v = m.operands[2];
  if (m.packed) {
    node.inputs[0] = q.root;
    node.inputs[1].clear();
    node.inputs[2].clear();
    node.attributes[kAttentionPackedQkvAttr] = IntsAttribute(
        {q.heads * q.head, m.operands[1].heads * m.operands[1].head, v.heads * v.head});
  } else {
    for (size_t i = 0; i < 3; ++i) node.inputs[i] = m.operands[i].root;
  }
  node.attributes["q_num_heads"] = IntAttribute(q.heads);
  node.attributes["kv_num_heads"] = IntAttribute(v.heads);
  node.attributes[kAttentionSequenceFirstAttr] = IntAttribute(1);
  node.attributes[kFusedNameAttr] = StringAttribute(
      FusedOpName(node) + (m.packed ? "(QKV packed, sequence-first)" : "(sequence-first)"));
  // The merging Transpose reads the [S, N, H*Ev] output as [S, N, H, Ev]:
  // what it gave before, now without moving a byte.
  Node& merge = graph->nodes[m.merge];
  const std::string y = UnusedValueName(*graph, uses, merge.outputs[0] + "/sequence_first");
  const std::string shape = UnusedValueName(*graph, uses, merge.outputs[0] + "/heads_shape");
  graph->initializers[shape] = HostTensor::FromInts({0, 0, q.heads, v.head}, {4});
  node.outputs[0] = y;
  merge.op_type = "Reshape";
  merge.since_version = 0;
  merge.inputs = {y, shape};
  merge.attributes.clear();
}

// Marks in `removed` the movement nodes of `m` that nothing reads now, the
// nearest first, so that each node's inputs are weighed after its readers.
void DropUnread(const SequenceFirstMatch& m, size_t a, Graph* graph, std::vector<bool>* removed) {
  const GraphUses uses(*graph);
  std::set<size_t> candidates;
  for (const SequenceFirstOperand& o : m.operands)
    candidates.insert(o.moved.begin(), o.moved.end());
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t n : candidates) {
      if ((*removed)[n]) continue;
      const std::string& out = graph->nodes[n].outputs[0];
      bool read = uses.IsGraphOutput(out);
      for (size_t r : uses.Readers(out)) read = read || !(*removed)[r];
      if (read) continue;
      (*removed)[n] = true;
      AbsorbInto(graph->nodes[n], &graph->nodes[a]);
      changed = true;
    }
  }
}

}  // namespace

absl::StatusOr<int> ReadAttentionSequenceFirst(Graph* graph, const ValueShapes& shapes1,
                                               const ValueShapes& shapes3) {
  std::vector<bool> removed(graph->nodes.size(), false);
  int rewritten = 0;
  for (size_t a = 0; a < graph->nodes.size(); ++a) {
    if (graph->nodes[a].op_type != "Attention") continue;
    std::optional<SequenceFirstMatch> m;
    {
      const GraphUses uses(*graph);
      m = MatchAt(*graph, uses, a, shapes1, shapes3);
      if (!m) continue;
      bool taken = removed[m->merge];
      for (const SequenceFirstOperand& o : m->operands) {
        for (size_t n : o.moved) taken = taken || removed[n];
      }
      if (taken) continue;
      RewriteToSequenceFirst(*m, uses, a, graph);
    }
    DropUnread(*m, a, graph, &removed);
    ++rewritten;
  }
  if (rewritten == 0) return 0;
  EraseNodes(removed, &graph->nodes);
  return rewritten;
}

}  // namespace vkserve
