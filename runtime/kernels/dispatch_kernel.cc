// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/kernels/dispatch_kernel.h"

#include "absl/strings/str_cat.h"
#include "runtime/kernels/strided_copy.h"

namespace vkserve {

absl::Status DispatchKernel::Record(const RecordContext& ctx) const {
  std::vector<gpu::Binding> bindings;
  for (const DispatchStep& step : steps_) {
    bindings.clear();
    for (const BufferRef& ref : step.bindings) {
      const std::vector<gpu::BufferRange>* list = nullptr;
      switch (ref.source) {
        case BufferRef::Source::kInput:
          list = &ctx.inputs;
          break;
        case BufferRef::Source::kOutput:
          list = &ctx.outputs;
          break;
        case BufferRef::Source::kScratch:
          list = &ctx.scratch;
          break;
        case BufferRef::Source::kConstant:
          list = &ctx.constants;
          break;
      }
      if (ref.index >= list->size()) {
        return absl::InternalError(absl::StrCat("binding ", bindings.size(), " of ",
                                                step.pipeline->name(),
                                                " refers to a missing buffer"));
      }
      // Shaders address buffers as 32-bit words: a tensor of 1- or 2-byte
      // elements is bound through its last whole word (WordRange).
      bindings.push_back({WordRange((*list)[ref.index]), ref.access});
    }
    RETURN_IF_ERROR(ctx.command_buffer.Dispatch(step.pipeline, bindings, step.push.bytes(),
                                                step.groups, ctx.label));
  }
  return absl::OkStatus();
}

}  // namespace vkserve
