// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// OpTraits: what the graph passes and planners know about an operator
// beyond how it runs: whether common subexpression elimination may merge
// its nodes, its part in GEMM epilogue fusion, how it meets FP16 precision,
// whether it passes its input through. An Op supplies its traits once
// (Op::traits(): a static, or a member built in its constructor); the passes
// read them and never name op types. Most traits are plain values; the few
// that depend on the node (or on load-time constants) are functions.
//
// An OpTraits is immutable once its op is made, and may be read from
// several threads.
#ifndef VKSERVE_RUNTIME_OP_OP_TRAITS_H_
#define VKSERVE_RUNTIME_OP_OP_TRAITS_H_

#include <cstddef>
#include <functional>
#include <optional>

#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"
#include "runtime/op/activation.h"

namespace vkserve {

// How a node meets FP16 precision's fp16 activations
// (runtime/plan/fp16_activations.h):
//   kNone: it gets fp32 copies of them;
//   kComputes: it computes on float16 tensors (fp32 inside where it
//     matters), so its fp32 inputs are converted for it;
//   kMoves: it only moves elements, so it takes either type.
// Under the last two the op must accept float16 for every float input that
// is not a host or shape-only input, all of them float16 together, and then
// give float16 outputs.
enum class Float16Use { kNone, kComputes, kMoves };

// The input slots a fusion pass may fill on a node of an op whose kernel
// applies the GEMM engine's epilogue: where a fused residual goes and, for
// ops taking one, a fused bias along the output's last dim (-1: none).
struct EpilogueSlots {
  int residual_input = -1;
  int bias_input = -1;
};

// Input i's value when known at load (an initializer), else null.
using ConstantInput = std::function<const HostTensor*(size_t input_index)>;

// The activation a node computes (see OpTraits::epilogue_activation).
using EpilogueActivationFn =
    std::function<absl::StatusOr<ActivationParams>(const Node& node, const ConstantInput&)>;

// Every member has a default initializer, so that an op names only the
// traits it has: `static const OpTraits kTraits{.float16 = Float16Use::kMoves};`.
struct OpTraits {
  // common-subexpressions: the outputs are a function of the inputs and
  // attributes alone (a random op's are not), so two such nodes reading the
  // same values compute the same thing and one is kept.
  bool pure = true;

  // epilogue-fusion, reshape-sinking: set for ops whose kernel applies the
  // GEMM engine's epilogue (Conv, Gemm, MatMul), which absorbs the
  // activations and Adds below; nullopt for every other op.
  std::optional<EpilogueSlots> epilogue_slots = std::nullopt;

  // For pointwise activations (Relu, Clip, Gelu, ...): the activation a node
  // computes, which a preceding GEMM can apply in its store instead.
  // NOT_FOUND when a parameter is not a constant, INVALID_ARGUMENT for
  // malformed ones. Empty for ops that are no such activation.
  EpilogueActivationFn epilogue_activation = nullptr;

  // The elementwise sum of two tensors (Add), which a fusion pass may fold
  // into a producer's epilogue as a residual or bias.
  bool elementwise_add = false;

  // fp16-gemm-engine: the op's products run on the GEMM engine, which FP16
  // precision marks so that it takes its FP16 / tensor-core plans.
  bool computes_on_gemm_engine = false;

  // fp16-activations: how the op meets fp16 activations.
  Float16Use float16 = Float16Use::kNone;

  // fp16-weights: the input that is the B operand of a GEMM which, at FP16
  // precision, rounds it to fp16 as it loads it (-1: none). An fp32
  // initializer that only such inputs read is then stored in fp16 at load,
  // with the same result and half the bytes.
  int half_rounded_weight_input = -1;

  // pass-through-removal: true when a node's one output is its one input,
  // unchanged (Identity; Concat of one input), so a pass may drop it and
  // let its readers read the input. Empty: never.
  std::function<bool(const Node&)> passes_through = nullptr;

  // epilogue_activation for `node`; NOT_FOUND where there is none.
  absl::StatusOr<ActivationParams> EpilogueActivation(const Node& node,
                                                      const ConstantInput& constant) const;
  bool PassesThrough(const Node& node) const { return passes_through && passes_through(node); }
  bool RoundsWeightToHalf(size_t input) const {
    return half_rounded_weight_input >= 0 &&
           input == static_cast<size_t>(half_rounded_weight_input);
  }
};

// The traits of an op whose kernel applies the GEMM engine's epilogue with
// these slots: it computes on the GEMM engine, and on fp16 activations.
OpTraits GemmEpilogueTraits(EpilogueSlots slots);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OP_OP_TRAITS_H_
