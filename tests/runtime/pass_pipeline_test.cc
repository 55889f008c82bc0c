// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// runtime/passes/pipeline.h with passes written here: they run in the order
// added, a pass disabled by name or switched off is recorded and not run,
// an unknown name is refused with the known ones, shapes are inferred only
// when a pass asks and again only after a change, ops are matched again
// only after a change, each record holds the pass's count, node counts and
// time; kMainGraphWithoutSubgraphs passes skip graphs with subgraphs,
// kEveryGraph passes rewrite If bodies and keep the values bodies read.
// The load's own list (load_passes.h) names every step of a load.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"
#include "runtime/op/op_registry.h"
#include "runtime/passes/load_passes.h"
#include "runtime/passes/pipeline.h"
#include "tests/testing/graph_helpers.h"

namespace vkserve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakeNode;
using testing::OpTypes;

// x: float[N, 4] -> Relu -> r -> Sigmoid -> y
Graph ChainGraph() {
  Graph g;
  g.inputs.push_back({"x", testing::FloatType({Dim{-1, "N", ""}, Dim{4, "", ""}})});
  g.outputs.push_back({"y", testing::FloatType({})});
  g.nodes.push_back(MakeNode("relu", "Relu", {"x"}, "r"));
  g.nodes.push_back(MakeNode("sigmoid", "Sigmoid", {"r"}, "y"));
  return g;
}

// A pass of `level` that appends its name to `log` and returns `changes`
// (changing nothing).
std::unique_ptr<GraphPass> Logging(std::string name, std::vector<std::string>* log,
                                   PassLevel level = PassLevel::kFusion, int changes = 0) {
  return std::make_unique<FunctionPass>(name, level, PassScope::kMainGraph,
                                        [name, log, changes](PassContext&) -> absl::StatusOr<int> {
                                          log->push_back(name);
                                          return changes;
                                        });
}

// The main graph's context, ops matched.
struct Loaded {
  explicit Loaded(Graph g) : graph(std::move(g)), inputs(graph.inputs) {}
  Graph graph;
  std::vector<ValueInfo> inputs;
  std::vector<const Op*> ops;
  PassContext context{&graph, &ops, &inputs};
};

TEST(PassPipelineTest, RunsInOrderByLevelAndRecordsEachPass) {
  std::vector<std::string> log;
  PassPipeline p;
  p.Add(Logging("b", &log, PassLevel::kLowering));
  p.Add(Logging("a", &log, PassLevel::kFusion));
  p.Add(Logging("c", &log, PassLevel::kPrecision));
  EXPECT_THAT(p.names(), ElementsAre("b", "a", "c"));
  Loaded m(ChainGraph());
  ASSERT_TRUE(p.Run(m.context, PassLevel::kLowering, PassLevel::kLowering).ok());
  EXPECT_THAT(log, ElementsAre("b"));
  ASSERT_TRUE(p.Run(m.context, PassLevel::kFusion, PassLevel::kPrecision).ok());
  EXPECT_THAT(log, ElementsAre("b", "a", "c"));
  ASSERT_EQ(p.records().size(), 3u);
  EXPECT_EQ(p.records()[0].name, "b");
  EXPECT_EQ(p.records()[2].level, PassLevel::kPrecision);
  EXPECT_EQ(m.ops.size(), 2u);  // matched for the passes
}

TEST(PassPipelineTest, DisabledAndOffPassesAreRecordedNotRun) {
  std::vector<std::string> log;
  PassPipeline p;
  p.Add(Logging("kept", &log));
  p.Add(Logging("named", &log));
  p.Add(Logging("switched-off", &log), /*on=*/false);
  ASSERT_TRUE(p.Disable({"named"}).ok());
  Loaded m(ChainGraph());
  ASSERT_TRUE(p.Run(m.context, PassLevel::kLowering, PassLevel::kPrecision).ok());
  EXPECT_THAT(log, ElementsAre("kept"));
  ASSERT_EQ(p.records().size(), 3u);
  EXPECT_EQ(p.records()[0].state, PassRecord::State::kRan);
  EXPECT_EQ(p.records()[1].state, PassRecord::State::kDisabled);
  EXPECT_EQ(p.records()[2].state, PassRecord::State::kOff);
  EXPECT_EQ(p.records()[1].seconds, 0);
}

TEST(PassPipelineTest, RefusesAnUnknownNameListingTheKnownOnes) {
  std::vector<std::string> log;
  PassPipeline p;
  p.Add(Logging("first", &log));
  p.Add(Logging("second", &log));
  const absl::Status s = p.Disable({"second", "thrid"});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("'thrid'"));
  EXPECT_THAT(s.message(), HasSubstr("first, second"));
}

// Asks for the shapes at both signatures, twice, and records y's first
// dimension at each.
std::unique_ptr<GraphPass> Asking(std::string name, std::vector<int64_t>* dims) {
  return std::make_unique<FunctionPass>(name, PassLevel::kFusion, PassScope::kMainGraph,
                                        [dims](PassContext& c) -> absl::StatusOr<int> {
                                          for (int repeat = 0; repeat < 2; ++repeat) {
                                            for (int64_t free_dim : {1, 3}) {
                                              const ValueShapes* s = c.ShapesAt(free_dim);
                                              if (s == nullptr || !s->contains("y"))
                                                return absl::InternalError("no shapes");
                                              if (repeat == 0) dims->push_back(s->at("y").shape[0]);
                                            }
                                          }
                                          return 0;
                                        });
}

// Makes the Sigmoid a Tanh: another op, the same shapes.
std::unique_ptr<GraphPass> Retyping() {
  return std::make_unique<FunctionPass>("retype", PassLevel::kFusion, PassScope::kMainGraph,
                                        [](PassContext& c) -> absl::StatusOr<int> {
                                          c.graph().nodes[1].op_type = "Tanh";
                                          return 1;
                                        });
}

TEST(PassPipelineTest, InfersShapesOnlyWhenAskedAndAgainOnlyAfterAChange) {
  std::vector<std::string> log;
  std::vector<int64_t> dims;
  PassPipeline p;
  p.Add(Logging("quiet", &log));  // asks for nothing: no inference
  p.Add(Asking("first", &dims));
  p.Add(Asking("unchanged", &dims));  // the graph is as it was: cached
  p.Add(Retyping());
  p.Add(Asking("after", &dims));
  Loaded m(ChainGraph());
  ASSERT_TRUE(p.Run(m.context, PassLevel::kLowering, PassLevel::kPrecision).ok());
  EXPECT_THAT(dims, ElementsAre(1, 3, 1, 3, 1, 3));
  const std::vector<PassRecord>& r = p.records();
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].shape_inferences, 0);
  EXPECT_EQ(r[1].shape_inferences, 2);
  EXPECT_EQ(r[2].shape_inferences, 0);
  EXPECT_EQ(r[4].shape_inferences, 2);
  EXPECT_EQ(m.context.shape_inferences(), 4);
}

TEST(PassPipelineTest, MatchesOpsAgainOnlyAfterAChange) {
  std::vector<std::string> log;
  PassPipeline p;
  p.Add(Logging("a", &log));
  p.Add(Logging("b", &log));
  p.Add(Retyping());
  p.Add(Logging("c", &log));
  Loaded m(ChainGraph());
  ASSERT_TRUE(p.Run(m.context, PassLevel::kLowering, PassLevel::kPrecision).ok());
  EXPECT_EQ(m.context.op_matches(), 2);  // before "a", after "retype"
  absl::StatusOr<const Op*> tanh = OpRegistry::Global().Find(m.graph.nodes[1]);
  ASSERT_TRUE(tanh.ok());
  EXPECT_EQ(m.ops[1], *tanh);
  EXPECT_EQ(p.records()[2].changes, 1);
  EXPECT_EQ(p.changes("retype"), 1);
}

TEST(PassPipelineTest, RecordsNodeCountsAndTime) {
  PassPipeline p;
  p.Add(std::make_unique<FunctionPass>("drop-sigmoid", PassLevel::kFusion, PassScope::kMainGraph,
                                       [](PassContext& c) -> absl::StatusOr<int> {
                                         Graph& g = c.graph();
                                         g.nodes.pop_back();
                                         g.nodes[0].outputs[0] = "y";
                                         return 1;
                                       }));
  Loaded m(ChainGraph());
  ASSERT_TRUE(p.Run(m.context, PassLevel::kLowering, PassLevel::kPrecision).ok());
  ASSERT_EQ(p.records().size(), 1u);
  const PassRecord& r = p.records()[0];
  EXPECT_EQ(r.state, PassRecord::State::kRan);
  EXPECT_EQ(r.changes, 1);
  EXPECT_EQ(r.nodes_before, 2u);
  EXPECT_EQ(r.nodes_after, 1u);
  EXPECT_GT(r.seconds, 0);
  EXPECT_EQ(m.ops.size(), 1u);
}

// s = Sigmoid(x); y = Mul(x, s); an If whose then_branch computes
// t = Sigmoid(x); u = Mul(t, x) (plus s, when `reads_s`), else_branch
// Relu(x).
Graph SiluWithIf(bool reads_s) {
  Graph g = ChainGraph();
  g.nodes.clear();
  g.inputs.push_back({"cond", {}});
  g.outputs.push_back({"z", testing::FloatType({})});
  g.nodes.push_back(MakeNode("sigmoid", "Sigmoid", {"x"}, "s"));
  g.nodes.push_back(MakeNode("mul", "Mul", {"x", "s"}, "y"));
  Graph body;
  body.nodes.push_back(MakeNode("inner_sigmoid", "Sigmoid", {"x"}, "t"));
  body.nodes.push_back(MakeNode("inner_mul", "Mul", {"t", "x"}, "u"));
  if (reads_s) body.nodes.push_back(MakeNode("inner_add", "Add", {"u", "s"}, "v"));
  body.outputs.push_back({reads_s ? "v" : "u", {}});
  Graph other;
  other.nodes.push_back(MakeNode("inner_relu", "Relu", {"x"}, "e"));
  other.outputs.push_back({"e", {}});
  Node if_node = MakeNode("if", "If", {"cond"}, "z");
  for (auto [name, graph] : {std::pair{"then_branch", &body}, {"else_branch", &other}}) {
    Attribute branch;
    branch.type = Attribute::Type::kGraph;
    branch.graphs.push_back(std::make_shared<const Graph>(std::move(*graph)));
    if_node.attributes[name] = branch;
  }
  g.nodes.push_back(std::move(if_node));
  return g;
}

const Graph& ThenBranch(const Graph& g) {
  return *g.nodes.back().attributes.at("then_branch").graphs[0];
}

TEST(PassPipelineTest, RunsEveryGraphPassesInsideSubgraphsOnly) {
  PassPipeline p = std::move(*MakeLoadPipeline(LoadPassOptions{}));
  Loaded m(SiluWithIf(/*reads_s=*/false));
  ASSERT_TRUE(p.Run(m.context, PassLevel::kLowering, PassLevel::kPrecision).ok());
  // Main graph and body: Sigmoid+Mul fused in both.
  EXPECT_THAT(OpTypes(m.graph), ElementsAre("Swish", "If"));
  EXPECT_THAT(OpTypes(ThenBranch(m.graph)), ElementsAre("Swish"));
  bool silu_ran = false;
  for (const PassRecord& r : p.records()) {
    if (r.name == "silu-fusion") {
      silu_ran = true;
      EXPECT_EQ(r.changes, 2);
      EXPECT_EQ(r.subgraphs_changed, 1);
    }
    // The whole-graph passes leave a graph with subgraphs alone.
    if (r.name == "epilogue-fusion") {
      EXPECT_EQ(r.state, PassRecord::State::kSubgraphs);
    }
  }
  EXPECT_TRUE(silu_ran);
}

TEST(PassPipelineTest, KeepsValuesASubgraphReads) {
  PassPipeline p = std::move(*MakeLoadPipeline(LoadPassOptions{}));
  Loaded m(SiluWithIf(/*reads_s=*/true));
  ASSERT_TRUE(p.Run(m.context, PassLevel::kLowering, PassLevel::kPrecision).ok());
  // s is read by the branch: the main graph's Sigmoid stays.
  EXPECT_THAT(OpTypes(m.graph), ElementsAre("Sigmoid", "Mul", "If"));
  EXPECT_THAT(OpTypes(ThenBranch(m.graph)), ElementsAre("Swish", "Add"));
}

TEST(LoadPassesTest, NamesEveryStepOfALoadInOrder) {
  std::unique_ptr<PassPipeline> p = MakeLoadPipeline(LoadPassOptions{});
  EXPECT_THAT(
      p->names(),
      ElementsAre("contrib-rewrites", "constant-lifting", "control-flow-resolution",
                  "pass-through-removal", "transpose-folding", "attention-fusion",
                  "attention-layout", "attention-sequence-first", "qkv-packing", "gelu-fusion",
                  "silu-fusion", "norm-fusion", "reshape-sinking", "epilogue-fusion",
                  "common-subexpressions", "channels-last", "weight-layout", "fp16-gemm-engine",
                  "fp16-weights", "fp16-activations"));
}

// The channels-last pass is opt-in: off unless LoadPassOptions asks for it.
TEST(LoadPassesTest, ChannelsLastIsOffByDefault) {
  auto state = [](const LoadPassOptions& options) {
    std::unique_ptr<PassPipeline> p = MakeLoadPipeline(options);
    Loaded m(ChainGraph());
    EXPECT_TRUE(p->Run(m.context, PassLevel::kLowering, PassLevel::kPrecision).ok());
    for (const PassRecord& r : p->records()) {
      if (r.name == "channels-last") return r.state;
    }
    ADD_FAILURE() << "no channels-last record";
    return PassRecord::State::kDisabled;
  };
  EXPECT_EQ(state(LoadPassOptions{}), PassRecord::State::kOff);
  EXPECT_EQ(state(LoadPassOptions{.channels_last = true}), PassRecord::State::kRan);
}

}  // namespace
}  // namespace vkserve
