// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/passes/pipeline.h"

#include <chrono>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "runtime/op/graph_uses.h"

namespace vkserve {
namespace {

// Adds to `read` every name a node of `graph`'s subgraphs (nested ones
// included) reads: an over-approximation of the values they capture.
void CollectSubgraphReads(const Graph& graph, std::set<std::string>& read) {
  for (const Node& node : graph.nodes) {
    for (const auto& [name, a] : node.attributes) {
      for (const auto& g : a.graphs) {
        for (const Node& inner : g->nodes) {
          for (const std::string& in : inner.inputs) {
            if (!in.empty()) read.insert(in);
          }
        }
        CollectSubgraphReads(*g, read);
      }
    }
  }
}

// Runs `pass` on `ctx`'s graph with the values its subgraphs read listed
// as graph outputs for the duration: a local pass then keeps them.
absl::StatusOr<int> RunProtected(const GraphPass& pass, PassContext& ctx) {
  Graph& graph = ctx.graph();
  std::set<std::string> read;
  CollectSubgraphReads(graph, read);
  for (const ValueInfo& out : graph.outputs) read.erase(out.name);
  const size_t declared = graph.outputs.size();
  for (const std::string& name : read) graph.outputs.push_back(ValueInfo{name, {}});
  absl::StatusOr<int> changes = pass.Run(ctx);
  graph.outputs.resize(declared);
  return changes;
}

// Runs `pass` in every subgraph body of `graph`, innermost last; returns
// its changes and counts the bodies it rewrote.
absl::StatusOr<int> RunInSubgraphs(const GraphPass& pass, Graph& graph, int& bodies) {
  int changes = 0;
  for (Node& node : graph.nodes) {
    for (auto& [name, a] : node.attributes) {
      for (std::shared_ptr<const Graph>& g : a.graphs) {
        Graph body = *g;
        PassContext sub(&body);
        ASSIGN_OR_RETURN(int here, RunProtected(pass, sub));
        ASSIGN_OR_RETURN(int inner, RunInSubgraphs(pass, body, bodies));
        if (here + inner == 0) continue;
        if (here > 0) ++bodies;
        changes += here + inner;
        g = std::make_shared<const Graph>(std::move(body));
      }
    }
  }
  return changes;
}

}  // namespace

std::string_view PassStateName(PassRecord::State state) {
  switch (state) {
    case PassRecord::State::kRan:
      return "ran";
    case PassRecord::State::kOff:
      return "off";
    case PassRecord::State::kDisabled:
      return "disabled";
    case PassRecord::State::kSubgraphs:
      return "skipped (control-flow subgraphs)";
  }
  return "?";
}

void PassPipeline::Add(std::unique_ptr<GraphPass> pass, bool on) {
  entries_.push_back(Entry{std::move(pass), on, false});
}

std::vector<std::string> PassPipeline::names() const {
  std::vector<std::string> names;
  for (const Entry& e : entries_) names.emplace_back(e.pass->name());
  return names;
}

absl::Status PassPipeline::Disable(const std::set<std::string>& names) {
  for (const std::string& name : names) {
    bool known = false;
    for (Entry& e : entries_) {
      if (e.pass->name() != name) continue;
      e.disabled = true;
      known = true;
    }
    if (!known) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown graph pass '", name, "'; the passes are: ", absl::StrJoin(this->names(), ", ")));
    }
  }
  return absl::OkStatus();
}

absl::Status PassPipeline::Run(PassContext& ctx, PassLevel first, PassLevel last) {
  for (const Entry& e : entries_) {
    if (e.pass->level() < first || e.pass->level() > last) continue;
    RETURN_IF_ERROR(RunOne(e, ctx));
  }
  return ctx.EnsureOps();
}

absl::Status PassPipeline::RunOne(const Entry& entry, PassContext& ctx) {
  const GraphPass& pass = *entry.pass;
  PassRecord r;
  r.name = std::string(pass.name());
  r.level = pass.level();
  r.nodes_before = r.nodes_after = ctx.graph().nodes.size();
  if (!entry.on) r.state = PassRecord::State::kOff;
  if (entry.disabled) r.state = PassRecord::State::kDisabled;
  if (r.state == PassRecord::State::kRan && pass.scope() == PassScope::kMainGraphWithoutSubgraphs &&
      HasSubgraphs(ctx.graph())) {
    r.state = PassRecord::State::kSubgraphs;
  }
  if (r.state != PassRecord::State::kRan) {
    records_.push_back(std::move(r));
    return absl::OkStatus();
  }
  const auto start = std::chrono::steady_clock::now();
  const int inferences = ctx.shape_inferences();
  if (pass.reads_ops()) RETURN_IF_ERROR(ctx.EnsureOps());
  const bool everywhere = pass.scope() == PassScope::kEveryGraph;
  ASSIGN_OR_RETURN(r.changes, everywhere ? RunProtected(pass, ctx) : pass.Run(ctx));
  bool changed = r.changes > 0;
  if (everywhere) {
    ASSIGN_OR_RETURN(int inner, RunInSubgraphs(pass, ctx.graph(), r.subgraphs_changed));
    r.changes += inner;
    changed = changed || inner > 0;
  }
  if (changed) {
    ctx.GraphChanged(pass.keeps_ops());
    RETURN_IF_ERROR(ctx.EnsureOps());
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.nodes_after = ctx.graph().nodes.size();
  r.shape_inferences = ctx.shape_inferences() - inferences;
  records_.push_back(std::move(r));
  return absl::OkStatus();
}

int PassPipeline::changes(std::string_view name) const {
  for (auto r = records_.rbegin(); r != records_.rend(); ++r) {
    if (r->name == name) return r->state == PassRecord::State::kRan ? r->changes : 0;
  }
  return 0;
}

bool PassPipeline::ran(std::string_view name) const {
  for (auto r = records_.rbegin(); r != records_.rend(); ++r) {
    if (r->name == name) return r->state == PassRecord::State::kRan;
  }
  return false;
}

}  // namespace vkserve
