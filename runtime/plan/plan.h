// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Plan: a model at one input-shape signature — every value's type, shape and
// place in GPU memory, every node folded, aliased or bound to a Kernel. The
// activation arena layout comes from the memory planner: values whose
// lifetimes do not overlap share bytes. Built by BuildPlan (planner.h),
// immutable afterwards and shared by every Session of the model.
#ifndef VKSERVE_RUNTIME_PLAN_PLAN_H_
#define VKSERVE_RUNTIME_PLAN_PLAN_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu/buffer.h"
#include "runtime/ir/graph.h"
#include "runtime/op/op.h"

namespace vkserve {

// The values of the model inputs that set shapes or bounds (Model::
// is_value_input), read on the host from the request; null for the others.
using InputValues = std::vector<std::shared_ptr<const HostTensor>>;

struct PlannedValue {
  std::string name;
  TensorDesc desc;
  enum class Storage {
    kHostOnly,  // known at plan time and never needed on the GPU
    kWeight,    // an initializer in the model's weight buffers
    kConstant,  // a folded value in the plan's constant buffer
    kArena,     // an intermediate in the session's activation arena
    kInput,     // a graph input (session input buffer or bound DeviceTensor)
    kOutput,    // written by its kernel straight into a session output buffer
  };
  Storage storage = Storage::kHostOnly;
  uint64_t offset = 0;  // in the arena or constant buffer
  int io_index = -1;    // input or output position for kInput / kOutput
  int alias_root = -1;  // for aliases: the value whose bytes these are
};

struct PlannedNode {
  const Node* node = nullptr;
  const Op* op = nullptr;
  // kFolded: computed on the host at plan time; kAlias: its output is an
  // input's bytes; kUnread: a kernel whose outputs nothing reads but for
  // their shapes, so it gets none; kKernel: dispatched.
  enum class Kind { kFolded, kAlias, kUnread, kKernel } kind = Kind::kKernel;
  std::vector<int> inputs;   // value ids; -1 where omitted or read on the host
  std::vector<int> outputs;  // value ids; -1 where omitted
  int alias_input = 0;       // kAlias: the input whose bytes output 0 is (Op::AliasedInput)
  std::unique_ptr<Kernel> kernel;
  std::vector<uint64_t> scratch_offsets;  // in the arena
  std::vector<uint64_t> scratch_sizes;
  std::vector<uint32_t> constants;  // indices into Plan::constant_ranges
};

// A graph output whose bytes are not written by a kernel into its output
// buffer (it is an input, a weight, an alias or folded): copied at the end.
struct OutputCopy {
  int output_index = -1;
  int value = -1;
};

struct Plan {
  std::string signature;  // e.g. "input=[1,3,224,224]"
  std::vector<PlannedValue> values;
  std::vector<PlannedNode> nodes;  // topological order
  // The nodes control-flow ops expanded into at this signature (If's branch,
  // Loop's and Scan's unrolled bodies); PlannedNode::node may point here.
  std::vector<std::unique_ptr<const Node>> expanded_nodes;
  std::vector<int> input_values;   // per model input
  std::vector<int> output_values;  // per model output
  std::vector<OutputCopy> output_copies;
  uint64_t arena_bytes = 0;         // after memory planning
  uint64_t tensor_bytes_total = 0;  // every arena value and scratch, unshared
  gpu::Buffer constants;            // folded values and kernel constants
  std::vector<std::pair<uint64_t, uint64_t>> constant_ranges;  // (offset, size) in `constants`
  int kernel_nodes = 0;
  int folded_nodes = 0;
  int alias_nodes = 0;
  int unread_nodes = 0;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_PLAN_PLAN_H_
