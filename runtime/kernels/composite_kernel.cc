// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/kernels/composite_kernel.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace vkserve {
namespace {

absl::StatusOr<gpu::BufferRange> CompositeKernelResolve(const RecordContext& ctx,
                                                        const NodeBuffer& b) {
  const std::vector<gpu::BufferRange>* list = nullptr;
  switch (b.source) {
    case NodeBuffer::Source::kInput:
      list = &ctx.inputs;
      break;
    case NodeBuffer::Source::kOutput:
      list = &ctx.outputs;
      break;
    case NodeBuffer::Source::kScratch:
      list = &ctx.scratch;
      break;
    case NodeBuffer::Source::kConstant:
      list = &ctx.constants;
      break;
  }
  if (b.index >= list->size()) {
    return absl::InternalError(absl::StrCat("composite step refers to a missing buffer ", b.index));
  }
  return (*list)[b.index];
}

}  // namespace

absl::Status CompositeKernel::Record(const RecordContext& ctx) const {
  for (const CompositeStep& step : steps_) {
    RecordContext sub{ctx.command_buffer, {}, {}, ctx.scratch, ctx.constants, ctx.label};
    for (const NodeBuffer& b : step.inputs) {
      ASSIGN_OR_RETURN(gpu::BufferRange r, CompositeKernelResolve(ctx, b));
      sub.inputs.push_back(r);
    }
    for (const NodeBuffer& b : step.outputs) {
      ASSIGN_OR_RETURN(gpu::BufferRange r, CompositeKernelResolve(ctx, b));
      sub.outputs.push_back(r);
    }
    RETURN_IF_ERROR(step.kernel->Record(sub));
  }
  return absl::OkStatus();
}

}  // namespace vkserve
