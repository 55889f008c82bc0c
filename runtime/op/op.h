// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Op and Kernel: how one ONNX operator is planned and run on the GPU.
//
// An Op is stateless and registered once per (domain, op_type, opset range)
// by a VKSERVE_REGISTER_OP line in its own file (runtime/ops/<op>.cc); no
// central switch names op types. Planning a node at one input-shape signature
// goes through three steps:
//
//   1. Validate(node)       at load: attributes, without shapes.
//   2. Infer(ctx)           per signature: output types and shapes. When the
//                           op can compute its outputs on the host from
//                           host-known inputs (shape arithmetic), it sets
//                           TensorDesc::value and the node is folded: it never
//                           runs, on CPU or GPU, during a request.
//   3. CreateKernel(ctx)    per signature, for nodes that are not folded:
//                           pipelines, push constants and workgroup counts.
//
// A Kernel then records the node's dispatches into a command buffer, which
// the session replays for every run with the same shapes.
//
// Control-flow ops (If, Loop, Scan) have no kernel: at step 2 they Expand
// their node into plain nodes for this signature — the branch an If's
// plan-time condition picks, a Loop's or Scan's body once per iteration —
// and the planner infers, folds and runs those like any other.
//
// What only particular graph passes and planners ask of an op (may its
// nodes merge, fuse into a GEMM's epilogue, take fp16, be dropped as a
// pass-through) is one OpTraits record (Op::traits()). What stays on Op is
// how a node executes, which planning and every run depend on: host and
// shape-only inputs (what is bound on the GPU), aliasing, sync-point
// outputs and their data-dependent axes, expansion, kernels.
//
// Ops and kernels are immutable after creation and may be used from several
// threads (kernels are shared by the sessions of a model).
#ifndef VKSERVE_RUNTIME_OP_OP_H_
#define VKSERVE_RUNTIME_OP_OP_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "gpu/buffer.h"
#include "gpu/command_buffer.h"
#include "gpu/device.h"
#include "gpu/pipeline.h"
#include "runtime/ir/graph.h"
#include "runtime/op/op_traits.h"

namespace vkserve {

// What planning knows about one value at one shape signature.
struct TensorDesc {
  DataType dtype = DataType::kUndefined;
  std::vector<int64_t> shape;
  // Set when the value is known on the host at plan time: an initializer, a
  // Constant, or a folded result. Kernels may read it (e.g. Pad's pads).
  std::shared_ptr<const HostTensor> value;

  int64_t num_elements() const;  // 1 for a scalar
  uint64_t byte_size() const;    // num_elements * element size
  std::string ToString() const;  // "float[1,3,224,224]"
};

// Folding: a node whose inputs are all host-known is computed on the host at
// plan time only if its outputs stay this small (shape arithmetic, not
// data); larger ones run on the GPU. The default of
// InferContext::max_fold_elements (ModelOptions::max_fold_elements).
inline constexpr int64_t kMaxFoldElements = 1 << 16;

// Step 2's inputs and outputs.
struct InferContext {
  const Node& node;
  // One per node input; nullptr where an optional input is omitted.
  std::vector<const TensorDesc*> inputs;
  // One per node output, to be filled (dtype, shape, and value when folding).
  std::vector<TensorDesc> outputs;
  // Fold only outputs (and folded inputs of reshape-like nodes) of at most
  // this many elements.
  int64_t max_fold_elements = kMaxFoldElements;

  // Input i, or nullptr when omitted / beyond the node's inputs.
  const TensorDesc* input(size_t i) const { return i < inputs.size() ? inputs[i] : nullptr; }
};

// Step 3's inputs, and the services a kernel may ask for.
class KernelContext {
 public:
  virtual ~KernelContext() = default;
  virtual const Node& node() const = 0;
  // nullptr where omitted.
  virtual const TensorDesc* input(size_t i) const = 0;
  virtual size_t num_inputs() const = 0;
  // An omitted optional output reads as an empty TensorDesc (kUndefined).
  virtual const TensorDesc& output(size_t i) const = 0;
  virtual size_t num_outputs() const = 0;
  virtual const gpu::Device& device() const = 0;

  // The pipeline for an embedded shader ("ops/unary" is shaders/ops/unary.comp).
  // Spec constants 0..2 are the workgroup size; `spec_constants` are ids 3...
  virtual absl::StatusOr<std::shared_ptr<const gpu::Pipeline>> GetPipeline(
      std::string_view shader, uint32_t num_bindings, uint32_t push_constant_bytes,
      std::array<uint32_t, 3> local_size, std::vector<uint32_t> spec_constants = {}) = 0;

  // Reserves `bytes` of GPU scratch memory, valid while this node executes;
  // returns its index in RecordContext::scratch.
  virtual uint32_t RequestScratch(uint64_t bytes) = 0;

  // Uploads `bytes` (e.g. repacked weights) once per plan; returns its index
  // in RecordContext::constants.
  virtual uint32_t AddConstant(std::vector<uint8_t> bytes) = 0;
};

// A KernelContext that passes everything to `base` (which must outlive it):
// the base of a view that changes only what some inner kernel sees (a
// narrowed type, a substituted input) while the plan's pipelines, scratch
// and constants stay the real context's.
class ForwardingKernelContext : public KernelContext {
 public:
  explicit ForwardingKernelContext(KernelContext& base) : base_(base) {}

  const Node& node() const override { return base_.node(); }
  const TensorDesc* input(size_t i) const override { return base_.input(i); }
  size_t num_inputs() const override { return base_.num_inputs(); }
  const TensorDesc& output(size_t i) const override { return base_.output(i); }
  size_t num_outputs() const override { return base_.num_outputs(); }
  const gpu::Device& device() const override { return base_.device(); }
  absl::StatusOr<std::shared_ptr<const gpu::Pipeline>> GetPipeline(
      std::string_view shader, uint32_t num_bindings, uint32_t push_constant_bytes,
      std::array<uint32_t, 3> local_size, std::vector<uint32_t> spec_constants) override {
    return base_.GetPipeline(shader, num_bindings, push_constant_bytes, local_size,
                             std::move(spec_constants));
  }
  uint32_t RequestScratch(uint64_t bytes) override { return base_.RequestScratch(bytes); }
  uint32_t AddConstant(std::vector<uint8_t> bytes) override {
    return base_.AddConstant(std::move(bytes));
  }

 protected:
  KernelContext& base() const { return base_; }

 private:
  KernelContext& base_;
};

// The buffers of one node in one recording.
struct RecordContext {
  gpu::CommandBuffer& command_buffer;
  // One per node input; size 0 where omitted or consumed on the host.
  std::vector<gpu::BufferRange> inputs;
  std::vector<gpu::BufferRange> outputs;
  std::vector<gpu::BufferRange> scratch;
  std::vector<gpu::BufferRange> constants;
  std::string label;  // the node's name, for timestamps and traces
};

// Step 2 for control-flow ops: emits the nodes that replace one node at one
// signature. The planner infers (and folds) each emitted node at once, so
// the op may read what an emitted node computed on the host (a Loop's
// condition) before emitting more.
class ExpandContext {
 public:
  virtual ~ExpandContext() = default;
  virtual const Node& node() const = 0;
  // What planning knows of value `name` so far, or null when it is not
  // defined (yet).
  virtual const TensorDesc* Find(const std::string& name) const = 0;
  // Infers `node` with the op the registry has for it and adds it to the
  // plan; errors name the node. `node.rewritten_from` is set to the expanded
  // node's name.
  virtual absl::Status Emit(Node node) = 0;
  // A value name not used in the plan, derived from `hint`.
  virtual std::string NewName(const std::string& hint) = 0;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  // Records the node's dispatches. Called once per recording; the recording
  // is replayed many times, so everything per-run must live in the buffers.
  virtual absl::Status Record(const RecordContext& ctx) const = 0;
  // Which kernel runs, where an op chooses among several at plan time
  // (`vkserve inspect` shows it); empty otherwise.
  virtual std::string Describe() const { return {}; }
};

// True when `node` runs at a sync point: it has the count output at
// `count_index` (Op::sync_count_output).
inline bool AtSyncPoint(const Node& node, int count_index) {
  return count_index >= 0 && node.outputs.size() > static_cast<size_t>(count_index) &&
         !node.outputs[count_index].empty();
}

class Op {
 public:
  enum class Execution {
    kKernel,  // runs dispatches
    kAlias,   // output 0 is input 0's bytes under another shape (Reshape, ...)
  };

  virtual ~Op() = default;

  // Load-time checks needing no shapes. Unsupported attribute values are
  // UNIMPLEMENTED; malformed ones INVALID_ARGUMENT. Messages need not name
  // the node: the caller prefixes node, op, domain and opset.
  virtual absl::Status Validate(const Node& /*node*/) const { return absl::OkStatus(); }

  // True for inputs read on the host at plan time (Reshape's shape, Slice's
  // starts, ...). They must be host-known and are never bound on the GPU.
  virtual bool IsHostInput(const Node& /*node*/, size_t /*input_index*/) const { return false; }

  // True for inputs of which only the shape matters (Shape's, Size's): a
  // host-read value computed from them does not make a model input that
  // feeds them a value input.
  virtual bool IsShapeOnlyInput(const Node& /*node*/, size_t /*input_index*/) const {
    return false;
  }

  // True for control-flow ops: Expand replaces Infer and CreateKernel.
  virtual bool expands() const { return false; }
  virtual absl::Status Expand(ExpandContext& ctx) const;

  virtual Execution execution() const { return Execution::kKernel; }

  // The input whose bytes output 0 is at this signature (ctx after Infer),
  // so the node runs as an alias there, or -1 to run its kernel. Aliases
  // (kAlias) are input 0 at every signature; an op that moves bytes
  // unchanged only at some shapes (Concat with one non-empty input) says so
  // here.
  virtual int AliasedInput(const InferContext& /*ctx*/) const {
    return execution() == Execution::kAlias ? 0 : -1;
  }

  // For ops whose output shapes depend on input data (NonZero, Compress,
  // NonMaxSuppression, Unique): the model is cut after such a node at a
  // sync point (runtime/sync_split.h). There the node has one more output
  // at index sync_count_output() (the op's output count; AtSyncPoint), the
  // count n (int64[1]); Infer reports each output at its upper bound, and
  // the kernel writes every output densely at its actual shape — axis
  // DataDependentAxis(node, output, rank) of it n — from the start of its
  // buffer, and n into the count. -1 for other ops, and for outputs of a
  // fixed shape.
  virtual int sync_count_output() const { return -1; }
  virtual int DataDependentAxis(const Node& /*node*/, size_t /*output*/, size_t /*rank*/) const {
    return -1;
  }

  // What the graph passes and planners know of the op (runtime/op/op_traits.h).
  // The default: pure, and no part in fusion or FP16, except that an alias
  // (kAlias) moves fp16 elements.
  virtual const OpTraits& traits() const;

  virtual absl::Status Infer(InferContext& ctx) const = 0;

  // Not called for folded nodes or aliases.
  virtual absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OP_OP_H_
