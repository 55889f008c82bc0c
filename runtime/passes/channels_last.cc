// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/channels_last.h"

#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/gemm/gemm_plan.h"
#include "runtime/op/activation.h"
#include "runtime/ops/nn/conv_layout.h"

namespace vkserve {
namespace {

// The value's shape, the same at both signatures where its channel count
// is concerned: rank 4 with a fixed dim 1.
const TensorDesc* Rank4(const ValueShapes& shapes, const std::string& name) {
  auto it = shapes.find(name);
  if (it == shapes.end() || it->second.shape.size() != 4) return nullptr;
  return &it->second;
}

// Whether `node` can run NHWC, apart from who else reads its weight.
bool Convertible(const Graph& graph, const Node& node, const ValueShapes& s1,
                 const ValueShapes& s3, bool fp16_activations, bool tensor_cores) {
  if (node.op_type != "Conv" || !node.domain.empty() || node.inputs.size() < 2 ||
      node.outputs.size() != 1 || node.FindAttribute(kConvLayoutAttr) != nullptr ||
      node.GetInt("group", 1) != 1) {
    return false;
  }
  auto w = graph.initializers.find(node.inputs[1]);
  if (w == graph.initializers.end() || w->second.shape.size() != 4) return false;
  if (w->second.dtype != DataType::kFloat && w->second.dtype != DataType::kFloat16) return false;
  const TensorDesc* x1 = Rank4(s1, node.inputs[0]);
  const TensorDesc* x3 = Rank4(s3, node.inputs[0]);
  if (x1 == nullptr || x3 == nullptr || x1->shape[1] != x3->shape[1]) return false;
  if (x1->shape[1] % 8 != 0 || x1->shape[1] != w->second.shape[1]) return false;
  if (!fp16_activations && x1->dtype != DataType::kFloat16) return false;
  if (!tensor_cores && node.GetString(kGemmPlanAttr, "").rfind("cm", 0) != 0) return false;
  absl::StatusOr<Epilogue> e = GetEpilogue(node);
  return e.ok();
}

// The slots of an NHWC Conv that read NHWC values: X and the residual.
bool IsNhwcSlot(const Node& node, size_t slot) {
  if (slot == 0) return true;
  absl::StatusOr<Epilogue> e = GetEpilogue(node);
  return e.ok() && e->residual != Epilogue::Residual::kNone &&
         static_cast<size_t>(e->residual_input) == slot;
}

// `w` [C_out, C_in, KH, KW] as [C_out, KH, KW, C_in].
void RepackWeight(HostTensor& w) {
  const size_t co = w.shape[0], ci = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  const size_t width = w.dtype == DataType::kFloat ? 4 : 2;
  std::vector<uint8_t> out(w.data.size());
  const uint8_t* in = w.data.data();
  for (size_t o = 0; o < co; ++o) {
    for (size_t c = 0; c < ci; ++c) {
      for (size_t y = 0; y < kh; ++y) {
        for (size_t x = 0; x < kw; ++x) {
          std::memcpy(out.data() + (((o * kh + y) * kw + x) * ci + c) * width,
                      in + (((o * ci + c) * kh + y) * kw + x) * width, width);
        }
      }
    }
  }
  w.data = TensorBytes(std::move(out));
  w.shape = {w.shape[0], w.shape[2], w.shape[3], w.shape[1]};
}

Node MakeTranspose(const Node& like, std::string name, std::string in, std::string out,
                   std::vector<int64_t> perm) {
  Node t;
  t.name = std::move(name);
  t.op_type = "Transpose";
  t.opset = like.opset;
  t.inputs = {std::move(in)};
  t.outputs = {std::move(out)};
  Attribute a;
  a.type = Attribute::Type::kInts;
  a.ints = std::move(perm);
  t.attributes["perm"] = std::move(a);
  return t;
}

// Clears `nhwc` on the Convs whose weight something else reads: a weight is
// repacked in place, so every reader must be an NHWC Conv's W.
void KeepUnsharedWeights(const Graph& graph, std::vector<bool>& nhwc) {
  const std::vector<Node>& nodes = graph.nodes;
  std::set<std::string> shared_weights;
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (size_t i = 0; i < nodes[n].inputs.size(); ++i) {
      if (!(nhwc[n] && i == 1)) shared_weights.insert(nodes[n].inputs[i]);
    }
  }
  for (const ValueInfo& v : graph.inputs) shared_weights.insert(v.name);
  for (const ValueInfo& v : graph.outputs) shared_weights.insert(v.name);
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (nhwc[n] && shared_weights.contains(nodes[n].inputs[1])) nhwc[n] = false;
  }
}

// Clears `nhwc` on the chains (channels_last.h) of 1x1 Convs alone.
void KeepSpatialChains(const Graph& graph, std::vector<bool>& nhwc) {
  const std::vector<Node>& nodes = graph.nodes;
  std::vector<size_t> parent(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n) parent[n] = n;
  auto root = [&parent](size_t n) {
    while (parent[n] != n) n = parent[n] = parent[parent[n]];
    return n;
  };
  // Each NHWC slot's value -> the first Conv that produced or read it.
  std::map<std::string, size_t> linked;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (!nhwc[n]) continue;
    for (size_t i = 0; i < nodes[n].inputs.size(); ++i) {
      if (nodes[n].inputs[i].empty() || !IsNhwcSlot(nodes[n], i)) continue;
      auto [it, first] = linked.emplace(nodes[n].inputs[i], n);
      if (!first) parent[root(n)] = root(it->second);
    }
    linked.emplace(nodes[n].outputs[0], n);
  }
  std::set<size_t> spatial;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (!nhwc[n]) continue;
    const std::vector<int64_t>& w = graph.initializers.at(nodes[n].inputs[1]).shape;
    if (w[2] * w[3] > 1) spatial.insert(root(n));
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (nhwc[n] && !spatial.contains(root(n))) nhwc[n] = false;
  }
}

}  // namespace

absl::StatusOr<int> ConvertConvsToChannelsLast(Graph* graph, const ValueShapes& shapes1,
                                               const ValueShapes& shapes3,
                                               const ChannelsLastOptions& options) {
  std::vector<Node>& nodes = graph->nodes;
  std::vector<bool> nhwc(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n) {
    nhwc[n] = Convertible(*graph, nodes[n], shapes1, shapes3, options.fp16_activations,
                          options.tensor_cores);
  }
  if (options.spatial_chains_only) KeepSpatialChains(*graph, nhwc);
  // After the chains: a Conv they leave NCHW may share its weight with one
  // still marked.
  KeepUnsharedWeights(*graph, nhwc);
  // Values produced by NHWC Convs that something reads as NCHW.
  std::set<std::string> produced, read_nchw;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (nhwc[n]) produced.insert(nodes[n].outputs[0]);
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (size_t i = 0; i < nodes[n].inputs.size(); ++i) {
      if (!(nhwc[n] && IsNhwcSlot(nodes[n], i))) read_nchw.insert(nodes[n].inputs[i]);
    }
  }
  for (const ValueInfo& v : graph->outputs) read_nchw.insert(v.name);

  std::map<std::string, std::string> nhwc_name;  // NCHW value -> its NHWC form
  std::set<std::string> repacked;
  std::vector<Node> out;
  out.reserve(nodes.size());
  int converted = 0;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (!nhwc[n]) {
      out.push_back(std::move(nodes[n]));
      continue;
    }
    Node& conv = nodes[n];
    for (size_t i = 0; i < conv.inputs.size(); ++i) {
      if (conv.inputs[i].empty() || !IsNhwcSlot(conv, i)) continue;
      const std::string& v = conv.inputs[i];
      if (!nhwc_name.contains(v)) {
        // Read from an NCHW producer (or a graph input): transposed once,
        // before its first NHWC reader.
        const std::string t = absl::StrCat(v, kNhwcValueSuffix);
        out.push_back(MakeTranspose(conv, absl::StrCat(conv.name, "/to_nhwc_", i), v, t,
                                    {0, 2, 3, 1}));
        nhwc_name[v] = t;
      }
      conv.inputs[i] = nhwc_name[v];
    }
    if (repacked.insert(conv.inputs[1]).second) RepackWeight(graph->initializers[conv.inputs[1]]);
    Attribute layout;
    layout.type = Attribute::Type::kString;
    layout.s = kConvLayoutNhwc;
    conv.attributes[kConvLayoutAttr] = std::move(layout);
    const std::string y = conv.outputs[0];
    const std::string y_nhwc = absl::StrCat(y, kNhwcValueSuffix);
    conv.outputs[0] = y_nhwc;
    nhwc_name[y] = y_nhwc;
    const std::string conv_name = conv.name;
    Node back = MakeTranspose(conv, absl::StrCat(conv_name, "/to_nchw"), y_nhwc, y, {0, 3, 1, 2});
    out.push_back(std::move(conv));
    if (read_nchw.contains(y)) out.push_back(std::move(back));
    ++converted;
  }
  nodes = std::move(out);
  return converted;
}

}  // namespace vkserve
