// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/load_passes.h"

#include <utility>

#include "runtime/op/activation.h"
#include "runtime/op/op_traits.h"
#include "runtime/op/rewrite.h"
#include "runtime/passes/attention_fusion.h"
#include "runtime/passes/attention_layout.h"
#include "runtime/passes/attention_sequence_first.h"
#include "runtime/passes/channels_last.h"
#include "runtime/passes/common_subexpressions.h"
#include "runtime/passes/fp16_weights.h"
#include "runtime/passes/fusion.h"
#include "runtime/passes/gelu_fusion.h"
#include "runtime/passes/norm_fusion.h"
#include "runtime/passes/pass_through.h"
#include "runtime/passes/qkv_packing.h"
#include "runtime/passes/reshape_sinking.h"
#include "runtime/passes/silu_fusion.h"
#include "runtime/passes/sync_control_flow.h"
#include "runtime/passes/transpose_folding.h"
#include "runtime/passes/weight_layout.h"
#include "runtime/plan/fp16_activations.h"

namespace vkserve {
namespace {

using Fn = FunctionPass::RunFn;
constexpr PassScope kMain = PassScope::kMainGraph;
constexpr PassScope kAlone = PassScope::kMainGraphWithoutSubgraphs;
constexpr PassScope kEvery = PassScope::kEveryGraph;

// A pass that needs the shapes at both free-dimension signatures: without
// them (inference failed) it changes nothing and planning reports the error.
template <typename F>
Fn WithShapes(F f) {
  return [f](PassContext& ctx) -> absl::StatusOr<int> {
    const ValueShapes* s1 = ctx.ShapesAt(1);
    const ValueShapes* s3 = ctx.ShapesAt(3);
    if (s1 == nullptr || s3 == nullptr) return 0;
    return f(ctx, *s1, *s3);
  };
}

void AddLowering(const LoadPassOptions& o, PassPipeline& p) {
  const PassLevel level = PassLevel::kLowering;
  // Contrib and blocked-layout nodes become plain ops first, so they fuse
  // and run like any other.
  p.Add(std::make_unique<FunctionPass>(
      "contrib-rewrites", level, kMain, [](PassContext& c) { return ApplyRewrites(&c.graph()); },
      PassOps{.keeps = false, .reads = false}));
  p.Add(std::make_unique<FunctionPass>(
            "constant-lifting", level, kMain,
            [](PassContext& c) -> absl::StatusOr<int> { return LiftConstantNodes(&c.graph()); }),
        o.fuse);
  // An If or Loop holding a sync node, its condition or trip count known
  // now: resolved in the graph, so the cut can be made inside.
  const int64_t fold = o.max_fold_elements;
  p.Add(std::make_unique<FunctionPass>(
      "control-flow-resolution", level, kMain,
      [fold](PassContext& c) { return ResolveControlFlowAtLoad(&c.graph(), c.ops(), fold); }));
}

void AddAttention(const LoadPassOptions& o, PassPipeline& p) {
  const PassLevel level = PassLevel::kFusion;
  const bool on = o.fuse && o.fuse_attention;
  p.Add(std::make_unique<FunctionPass>(
            "transpose-folding", level, kAlone,
            WithShapes([](PassContext& c, const ValueShapes& s1, const ValueShapes& s3) {
              return FoldFlattenedTransposes(&c.graph(), s1, s3);
            })),
        on);
  p.Add(std::make_unique<FunctionPass>(
            "attention-fusion", level, kAlone,
            WithShapes([](PassContext& c, const ValueShapes& s1, const ValueShapes& s3) {
              return FuseAttention(&c.graph(), s1, s3);
            })),
        on);
  p.Add(std::make_unique<FunctionPass>(
            "attention-layout", level, kAlone,
            WithShapes([](PassContext& c, const ValueShapes& s1, const ValueShapes& s3) {
              return AbsorbAttentionHeadTransposes(&c.graph(), c.ops(), s1, s3);
            })),
        on);
  p.Add(std::make_unique<FunctionPass>(
            "attention-sequence-first", level, kAlone,
            WithShapes([](PassContext& c, const ValueShapes& s1, const ValueShapes& s3) {
              return ReadAttentionSequenceFirst(&c.graph(), s1, s3);
            })),
        on);
  p.Add(std::make_unique<FunctionPass>("qkv-packing", level, kAlone,
                                       [](PassContext& c) -> absl::StatusOr<int> {
                                         const ValueShapes* s1 = c.ShapesAt(1);
                                         if (s1 == nullptr) return 0;
                                         return PackQkv(&c.graph(), c.ops(), *s1);
                                       }),
        on);
}

// Attention and epilogue fusion see one graph's consumers only: a value a
// control-flow subgraph reads could be fused away under it, so they leave
// graphs with subgraphs alone. GELU and SiLU match plain chains of one
// graph and run in every graph.
void AddFusion(const LoadPassOptions& o, PassPipeline& p) {
  const PassLevel level = PassLevel::kFusion;
  p.Add(std::make_unique<FunctionPass>("pass-through-removal", level, kAlone,
                                       [](PassContext& c) -> absl::StatusOr<int> {
                                         return DropPassThroughNodes(&c.graph(), c.ops());
                                       }),
        o.fuse);
  AddAttention(o, p);
  p.Add(std::make_unique<FunctionPass>(
            "gelu-fusion", level, kEvery,
            [](PassContext& c) -> absl::StatusOr<int> { return FuseGelu(&c.graph()); }),
        o.fuse);
  p.Add(std::make_unique<FunctionPass>(
            "silu-fusion", level, kEvery,
            [](PassContext& c) -> absl::StatusOr<int> { return FuseSilu(&c.graph()); }),
        o.fuse);
  p.Add(std::make_unique<FunctionPass>(
            "norm-fusion", level, kAlone,
            WithShapes([](PassContext& c, const ValueShapes& s1, const ValueShapes& s3) {
              return FuseNormalizations(&c.graph(), s1, s3);
            })),
        o.fuse);
  p.Add(std::make_unique<FunctionPass>(
            "reshape-sinking", level, kAlone,
            WithShapes([](PassContext& c, const ValueShapes& s1, const ValueShapes& s3) {
              return SinkReshapes(&c.graph(), c.ops(), s1, s3);
            })),
        o.fuse);
  p.Add(std::make_unique<FunctionPass>(
            kEpilogueFusionPass, level, kAlone,
            WithShapes([](PassContext& c, const ValueShapes& s1, const ValueShapes& s3) {
              return FuseEpilogues(&c.graph(), c.ops(), s1, s3);
            })),
        o.fuse);
  p.Add(std::make_unique<FunctionPass>("common-subexpressions", level, kAlone,
                                       [](PassContext& c) -> absl::StatusOr<int> {
                                         return EliminateCommonSubexpressions(&c.graph(), c.ops());
                                       }),
        o.fuse);
}

// Marks the ops computing on the GEMM engine for FP16 math and, with
// fp16_accumulation, the GEMM ops proper (those with an epilogue: Conv,
// Gemm, MatMul, ...) for fp16 sums. Attention keeps fp32 sums: its scores
// feed a softmax.
int MarkFp16GemmEngine(PassContext& c, bool fp16_accumulation) {
  int marked = 0;
  Graph& graph = c.graph();
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const OpTraits& traits = c.ops()[n]->traits();
    if (!traits.computes_on_gemm_engine) continue;
    SetPrecision(Precision::kFp16, &graph.nodes[n]);
    if (fp16_accumulation && traits.epilogue_slots.has_value()) {
      SetAccumulation(Accumulation::kFp16, &graph.nodes[n]);
    }
    ++marked;
  }
  return marked;
}

// Layout and precision rewrite initializers and attributes: the ops stay.
void AddLayoutAndPrecision(const LoadPassOptions& o, PassPipeline& p) {
  const PassOps keeps{.keeps = true, .reads = true};
  // ModelOptions::conv_layout decides whether it runs, and on which chains.
  p.Add(std::make_unique<FunctionPass>(
            kChannelsLastPass, PassLevel::kLayout, kAlone,
            WithShapes([o](PassContext& c, const ValueShapes& s1, const ValueShapes& s3) {
              return ConvertConvsToChannelsLast(
                  &c.graph(), s1, s3,
                  {.fp16_activations = o.fp16,
                   .tensor_cores = o.tensor_cores,
                   .spatial_chains_only = o.channels_last_spatial});
            })),
        o.channels_last);
  p.Add(std::make_unique<FunctionPass>(
      "weight-layout", PassLevel::kLayout, kAlone,
      [](PassContext& c) -> absl::StatusOr<int> {
        return TransposeUnalignedMatMulWeights(&c.graph());
      },
      keeps));
  const PassLevel level = PassLevel::kPrecision;
  p.Add(std::make_unique<FunctionPass>(
            "fp16-gemm-engine", level, kMain,
            [acc16 = o.fp16_accumulation](PassContext& c) -> absl::StatusOr<int> {
              return MarkFp16GemmEngine(c, acc16);
            },
            keeps),
        o.fp16);
  p.Add(std::make_unique<FunctionPass>(
            kFp16WeightsPass, level, kMain,
            [](PassContext& c) -> absl::StatusOr<int> {
              return StoreWeightsInFp16(&c.graph(), c.ops());
            },
            keeps),
        o.fp16);
  // Plans keep activations in fp16 only without control flow.
  std::set<std::string>* halved = o.halved;
  p.Add(std::make_unique<FunctionPass>(
            kFp16ActivationsPass, level, kAlone,
            [halved](PassContext& c) -> absl::StatusOr<int> {
              std::set<std::string> h = HalveInitializers(&c.graph(), c.ops());
              const int count = static_cast<int>(h.size());
              if (halved != nullptr) *halved = std::move(h);
              return count;
            },
            keeps),
        o.fp16);
}

}  // namespace

std::unique_ptr<PassPipeline> MakeLoadPipeline(const LoadPassOptions& options) {
  auto pipeline = std::make_unique<PassPipeline>();
  AddLowering(options, *pipeline);
  AddFusion(options, *pipeline);
  AddLayoutAndPrecision(options, *pipeline);
  return pipeline;
}

}  // namespace vkserve
