// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BuildPlan: turns a model (PlanInputs) and one set of input shapes into a Plan — infers
// every value's type and shape, folds nodes computable on the host from
// shapes and constants, aliases reshape-like nodes, creates a Kernel for
// every other node, and lays the intermediates out in one arena (see
// memory_planner.h). Errors name the node, op, domain and opset.
#ifndef VKSERVE_RUNTIME_PLAN_PLANNER_H_
#define VKSERVE_RUNTIME_PLAN_PLANNER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gpu/buffer.h"
#include "gpu/gpu_context.h"
#include "runtime/ir/graph.h"
#include "runtime/op/op.h"
#include "runtime/plan/plan.h"

namespace vkserve {

// What BuildPlan reads of a model (Model::plan_inputs()): the graph after
// its passes with the op chosen for each node, the model's interface, its
// weights resident on the GPU, and the planning options. Borrowed: all of it
// outlives the call.
struct PlanInputs {
  const Graph& graph;
  const std::vector<const Op*>& ops;  // ops[n] runs graph.nodes[n]
  const std::vector<ValueInfo>& inputs;
  const std::vector<ValueInfo>& outputs;
  const std::map<std::string, gpu::Buffer>& weights;  // by initializer name
  const GpuContext& gpu;
  int64_t max_fold_elements;  // ModelOptions::max_fold_elements
  bool fp16_activations;      // Model::fp16_activations()
  const std::set<std::string>& halved_initializers;
};

// Alignment of every arena and constant-buffer offset.
inline constexpr uint64_t kTensorAlignment = 256;

// REQUIRES: input_shapes has one shape per model input, already checked
// against the declared shapes; input_values is empty or has one entry per
// model input, each matching its shape.
absl::StatusOr<std::shared_ptr<const Plan>> BuildPlan(
    const PlanInputs& model, const std::vector<std::vector<int64_t>>& input_shapes,
    const InputValues& input_values = {});

// Infers every value's TensorDesc without creating kernels (used by the
// fusion pass to compare shapes). Values are keyed by name.
absl::StatusOr<std::map<std::string, TensorDesc>> InferShapes(
    const Graph& graph, const std::vector<const Op*>& ops, const std::vector<ValueInfo>& inputs,
    const std::vector<std::vector<int64_t>>& input_shapes);

// "Conv (node 'conv1', domain 'ai.onnx', opset 13): " — the prefix of every
// error about a node.
std::string NodeErrorPrefix(const Node& node);
absl::Status AnnotateNodeError(const Node& node, const absl::Status& status);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PLAN_PLANNER_H_
