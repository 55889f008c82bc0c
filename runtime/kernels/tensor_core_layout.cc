// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/kernels/tensor_core_layout.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "gpu/allocator.h"
#include "gpu/command_buffer.h"
#include "gpu/pipeline.h"
#include "gpu/queue.h"
#include "gpu/transfer.h"
#include "runtime/kernels/tensor_cores.h"
#include "shaders/shader_registry.h"

namespace vkserve {

bool FragmentsMatchMma(std::span<const float> probe) {
  if (probe.size() < kFragmentProbeFloats || probe[512] != 8.0f || probe[513] != 8.0f) return false;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    for (uint32_t e = 0; e < 8; ++e) {
      const float want = static_cast<float>(MmaFragmentElement(lane, e));
      if (probe[8 * lane + e] != want || probe[256 + 8 * lane + e] != want) return false;
    }
  }
  return true;
}

absl::StatusOr<bool> ProbeMmaFragments(const GpuContext& gpu, bool emulated) {
  gpu::Device& device = *gpu.device;
  const std::string name =
      emulated
          ? "gpu/probe_cm_layout_emu"
          : absl::StrCat("gpu/probe_cm_layout", device.info().cooperative_matrix_khr ? "_khr" : "");
  gpu::PipelineDesc desc;
  desc.name = name;
  desc.spirv = shaders::Find(name);
  if (desc.spirv.empty())
    return absl::InternalError(absl::StrCat("no embedded shader '", name, "'"));
  desc.num_bindings = 1;
  desc.local_size = {32, 1, 1};
  if (!emulated) desc.required_subgroup_size = kTensorCoreSubgroupSize;
  ASSIGN_OR_RETURN(std::shared_ptr<const gpu::Pipeline> pipeline, gpu.pipelines->Get(desc));

  const uint64_t bytes = kFragmentProbeFloats * sizeof(float);
  ASSIGN_OR_RETURN(gpu::Buffer out, gpu.allocator->Allocate(bytes, gpu::MemoryUsage::kHostReadback,
                                                            gpu::MemoryKind::kOther));
  ASSIGN_OR_RETURN(std::unique_ptr<gpu::CommandBuffer> cb, gpu::CommandBuffer::Create(device));
  RETURN_IF_ERROR(cb->Begin());
  const gpu::Binding bindings[] = {{out.range(), gpu::Access::kWrite}};
  RETURN_IF_ERROR(cb->Dispatch(pipeline, bindings, {}, {1, 1, 1}, "fragment layout probe"));
  RETURN_IF_ERROR(cb->End());
  ASSIGN_OR_RETURN(const uint64_t done, device.queue().Submit(*cb));
  RETURN_IF_ERROR(device.queue().Wait(done));
  std::vector<float> probe(kFragmentProbeFloats);
  RETURN_IF_ERROR(
      gpu::Download(*gpu.allocator, out, 0, {reinterpret_cast<uint8_t*>(probe.data()), bytes}));
  return FragmentsMatchMma(probe);
}

}  // namespace vkserve
