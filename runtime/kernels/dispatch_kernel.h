// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// DispatchKernel: a Kernel that records a fixed list of compute dispatches,
// each binding some of the node's inputs, outputs, scratch buffers and
// constants (rounded up to whole 32-bit words, so byte-sized tensors bind
// as shaders read them). Every op whose kernel is a fixed list of dispatches
// (elementwise, normalization, reduction, pooling, Gather, Where, Pad,
// Resize, Cast, ...) builds one in CreateKernel instead of writing its own
// Kernel class. Immutable after construction; thread-safe.
#ifndef VKSERVE_RUNTIME_KERNELS_DISPATCH_KERNEL_H_
#define VKSERVE_RUNTIME_KERNELS_DISPATCH_KERNEL_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "runtime/op/op.h"
#include "runtime/op/op_util.h"

namespace vkserve {

// Which buffer of the node's RecordContext a shader binding reads or writes.
struct BufferRef {
  enum class Source : uint8_t { kInput, kOutput, kScratch, kConstant };
  Source source = Source::kInput;
  uint32_t index = 0;
  gpu::Access access = gpu::Access::kRead;

  static BufferRef Input(uint32_t i) { return {Source::kInput, i, gpu::Access::kRead}; }
  // kReadWrite for a shader that writes sub-word elements into shared words.
  static BufferRef Output(uint32_t i, gpu::Access access = gpu::Access::kWrite) {
    return {Source::kOutput, i, access};
  }
  static BufferRef Scratch(uint32_t i, gpu::Access access) { return {Source::kScratch, i, access}; }
  static BufferRef Constant(uint32_t i) { return {Source::kConstant, i, gpu::Access::kRead}; }
};

// A whole parameter struct laid out as the shader's push-constant block.
template <typename Block>
PushConstants PushBlock(const Block& block) {
  static_assert(std::is_trivially_copyable_v<Block> && sizeof(Block) % 4 == 0);
  PushConstants push;
  for (size_t at = 0; at + 4 <= sizeof(block); at += 4) {
    uint32_t word;
    std::memcpy(&word, reinterpret_cast<const uint8_t*>(&block) + at, 4);
    push.U32(word);
  }
  return push;
}

// One dispatch: `bindings` in the shader's binding order.
struct DispatchStep {
  std::shared_ptr<const gpu::Pipeline> pipeline;
  std::vector<BufferRef> bindings;
  PushConstants push;
  std::array<uint32_t, 3> groups{1, 1, 1};
};

class DispatchKernel : public Kernel {
 public:
  // An empty `steps` records nothing (e.g. an output with no elements).
  explicit DispatchKernel(std::vector<DispatchStep> steps) : steps_(std::move(steps)) {}

  absl::Status Record(const RecordContext& ctx) const override;

 private:
  std::vector<DispatchStep> steps_;
};

// A kernel that records nothing (an output with no elements).
inline std::unique_ptr<Kernel> MakeEmptyKernel() {
  return std::make_unique<DispatchKernel>(std::vector<DispatchStep>{});
}

// The usual case: one dispatch.
inline std::unique_ptr<Kernel> MakeDispatchKernel(DispatchStep step) {
  std::vector<DispatchStep> steps;
  steps.push_back(std::move(step));
  return std::make_unique<DispatchKernel>(std::move(steps));
}

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_KERNELS_DISPATCH_KERNEL_H_
