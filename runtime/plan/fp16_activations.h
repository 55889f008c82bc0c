// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// FP16 activations: at FP16 precision the values between ops are stored in
// fp16 wherever the ops reading them take fp16 (OpTraits::float16: the GEMM
// engine's ops, elementwise ops, LayerNormalization and Attention compute on
// it; data movement and aliases pass it on), so every pass over an
// activation moves half the bytes and the GEMM kernels load fp16 operands as
// they are. Arithmetic inside a kernel stays fp32 (sums, softmax,
// normalization statistics).
//
// Two parts:
//  - At load, HalveInitializers stores in fp16 each fp32 initializer that only
//    such ops read as data, saturating at +-65504: an additive mask of
//    -3.4e38 must stay finite, or 0 * mask gives NaN.
//  - While planning, Fp16Activations rewrites node by node, with types known:
//    an op computing in fp16 gets an fp16 copy of each fp32 data input (one
//    Cast per value, shared by its readers); an op moving elements gets them
//    only when another of its inputs is fp16 already, so all are alike; any
//    other op gets an fp32 copy of each input that holds fp16 only because
//    of this policy. A graph output keeps its declared type (a Cast at the
//    end). Values a model stores in float16 are the model's own and are
//    never converted back for it.
//
// Graphs with control-flow subgraphs are left alone (a subgraph reads outer
// values by name, which a rewrite would have to follow). Not thread-safe: one
// Fp16Activations per plan being built.
#ifndef VKSERVE_RUNTIME_PLAN_FP16_ACTIVATIONS_H_
#define VKSERVE_RUNTIME_PLAN_FP16_ACTIVATIONS_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"
#include "runtime/op/op.h"

namespace vkserve {

// Stores in fp16 the initializers described above; returns their names.
// `ops` are the ops of graph->nodes, in order.
std::set<std::string> HalveInitializers(Graph* graph, const std::vector<const Op*>& ops);

class Fp16Activations {
 public:
  // `graph`: the model's (its names are not reused); `outputs`: its outputs,
  // which keep their declared types; `halved`: values already fp16 by this
  // policy (HalveInitializers' initializers).
  Fp16Activations(const Graph& graph, const std::vector<ValueInfo>& outputs,
                  std::set<std::string> halved);

  // The inferred description of a value planned so far; null when unknown.
  using Lookup = std::function<const TensorDesc*(const std::string&)>;

  // What to plan in place of a node: the casts to infer first, the node
  // itself with inputs (and graph outputs) renamed, then, once it is
  // inferred, Finish's casts.
  struct Rewrite {
    std::vector<Node> before;
    Node node;
  };
  // nullopt: plan `node` as it is. `op` is node's op. Not for the Casts
  // this class made (IsOwn).
  std::optional<Rewrite> Plan(const Node& node, const Op& op, const Lookup& find);

  // After `node` (as Plan returned it, or unchanged) is inferred: records
  // which outputs hold fp16 by this policy and returns the nodes that give
  // renamed graph outputs their declared type.
  std::vector<Node> Finish(const Node& node, const Op& op, const Lookup& find);

  // Prefix of the values and Cast nodes this policy adds (made unique
  // against the model's names), and the attribute that marks its Casts.
  static constexpr char kPrefix[] = "_vkserve_fp16/";
  static constexpr char kOwnAttr[] = "_vkserve_fp16_cast";
  static bool IsOwn(const Node& node) { return node.GetInt(kOwnAttr, 0) != 0; }

 private:
  // The name of `value` converted to `to` (a Cast into `before` the first time).
  std::string Converted(const std::string& value, DataType to, const TensorDesc& desc,
                        const Node& reader, const Lookup& find, std::vector<Node>* before);
  // Whether a data input of `node` is fp16 by this policy.
  bool HasHalvedInput(const Node& node, const Op& op) const;
  // kPrefix + `base`, with a suffix where the model or this class has the name.
  std::string NewName(const std::string& base, const Lookup& find);

  std::map<std::string, DataType> outputs_;                // graph outputs: declared types
  std::set<std::string> halved_;                           // values fp16 by this policy
  std::map<std::string, std::string> to_half_, to_float_;  // conversions made
  std::map<std::string, std::string> renamed_outputs_;     // node output -> graph output
  std::set<std::string> names_;                            // the model's names and every name made
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PLAN_FP16_ACTIVATIONS_H_
