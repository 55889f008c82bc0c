// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// CompositeKernel: a Kernel that records other kernels in order, each seeing
// its own inputs and outputs drawn from the node's inputs, outputs, scratch
// buffers and constants. An op lowered to several primitive kernels (Einsum:
// strided copies and a GEMM) builds its steps with the ordinary kernel
// factories (CreateStridedCopyKernel, CreateGemmKernel) and chains them
// through scratch. Scratch and constant indices stay the node's, so steps
// may request their own. Immutable after construction; thread-safe.
#ifndef VKSERVE_RUNTIME_KERNELS_COMPOSITE_KERNEL_H_
#define VKSERVE_RUNTIME_KERNELS_COMPOSITE_KERNEL_H_

#include <memory>
#include <string>
#include <vector>

#include "runtime/op/op.h"

namespace vkserve {

// One of the node's buffers.
struct NodeBuffer {
  enum class Source { kInput, kOutput, kScratch, kConstant };
  Source source = Source::kInput;
  uint32_t index = 0;
};

struct CompositeStep {
  std::unique_ptr<Kernel> kernel;
  std::vector<NodeBuffer> inputs;   // the step's inputs, in its order
  std::vector<NodeBuffer> outputs;  // the step's outputs
};

class CompositeKernel : public Kernel {
 public:
  // `description`: what Describe reports (which kernels the op chose).
  explicit CompositeKernel(std::vector<CompositeStep> steps, std::string description = {})
      : steps_(std::move(steps)), description_(std::move(description)) {}

  absl::Status Record(const RecordContext& ctx) const override;
  std::string Describe() const override { return description_; }

 private:
  std::vector<CompositeStep> steps_;
  std::string description_;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_COMPOSITE_KERNEL_H_
