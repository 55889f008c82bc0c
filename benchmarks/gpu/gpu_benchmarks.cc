// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// vkserve_gpu_bench: the two ceilings of the Vulkan layer, timed by GPU
// timestamp queries (Google Benchmark with UseManualTime):
//
//   copy/vkCmdCopyBuffer/<size>         vkCmdCopyBuffer device-local -> device-local
//   copy/shader/<size>/wg:W/ept:E       gpu/copy_vec4 (16-byte loads/stores, E per thread)
//   fma_fp32/wg:W/groups:G/iters:I      gpu/fma_throughput (8 vec4 FMA chains per thread)
//   copy/vkCmdCopyBuffer_family/F:FLAGS/<size>
//                                       vkCmdCopyBuffer on queue family F, through a raw
//                                       VkDevice of its own (is the copy's speed the queue's?)
//   readback/direct/<size>/threads:T    a model output read into reused host memory by T
//                                       threads (gpu::ParallelCopy) straight from its mapped
//                                       device-local buffer, as sessions do where VRAM is
//                                       host-visible (wall time)
//   readback/staged/<size>/threads:T    the same through a host-cached staging buffer: the
//                                       GPU's copy into it, then T threads' copy out (wall)
//
// Conventions. One benchmark iteration is one submission of R back-to-back
// copies of the same src -> dst (the hazard tracker puts a barrier between
// consecutive copies: each overwrites the last one's destination, as
// consecutive dependent ops do); its manual time is the GPU time from the first
// copy's start timestamp to the last one's end. "GB/s" = bytes copied (one
// direction: a copy of N bytes counts N, not the 2N read plus written) per
// second, 1 GB = 1e9 bytes, from the median per-copy time over all
// iterations; "us_per_copy" is that median. The source holds random bytes
// (never zeros: compressible data can run faster), the destination is
// poisoned before each benchmark and compared with the source after it.
// "TFLOP/s" = invocations * ITERATIONS * 8 vec4 FMAs * 4 lanes * 2 FLOP over
// the median dispatch time.
//
// Flags (before Google Benchmark's own): --device=SEL (index or name
// substring; else env VKSERVE_DEVICE; else the best device), --sizes_mib=LIST
// (comma-separated; default 1,16,256,1024 on GPUs, 1,16 on CPU devices such as
// lavapipe), --small (CPU-sized work everywhere). Sizes above the device's
// maxStorageBufferRange / maxMemoryAllocationSize are skipped with a note.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "gpu/allocator.h"
#include "gpu/command_buffer.h"
#include "gpu/device.h"
#include "gpu/instance.h"
#include "gpu/parallel_copy.h"
#include "gpu/pipeline.h"
#include "gpu/queue.h"
#include "gpu/transfer.h"
#include "gpu/vk_status.h"
#include "shaders/shader_registry.h"

namespace vkserve::gpu {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint32_t kPoison = 0xdeadbeefu;

struct Gpu {
  std::unique_ptr<Instance> instance;
  std::unique_ptr<Device> device;
  std::unique_ptr<Allocator> allocator;
  std::unique_ptr<PipelineCache> pipelines;
};
Gpu* g_gpu = nullptr;

std::string SizeName(uint64_t bytes) {
  if (bytes % (uint64_t{1} << 30) == 0) return absl::StrCat(bytes >> 30, "GiB");
  if (bytes % kMiB == 0) return absl::StrCat(bytes >> 20, "MiB");
  return absl::StrCat(bytes >> 10, "KiB");
}

// A source buffer of random bytes and a destination, kept across the
// benchmarks of one size (they are registered grouped by size), so the random
// fill happens once per size.
struct CopyBuffers {
  uint64_t size = 0;
  Buffer src, dst;
  std::vector<uint8_t> pattern;  // src is this pattern repeated
};

CopyBuffers g_buffers;  // released before the allocator at exit

CopyBuffers& BuffersFor(uint64_t size, absl::Status& status) {
  CopyBuffers& buffers = g_buffers;
  if (buffers.size == size) return buffers;
  buffers = CopyBuffers{};
  status = [&]() -> absl::Status {
    Allocator& allocator = *g_gpu->allocator;
    ASSIGN_OR_RETURN(buffers.src,
                     allocator.Allocate(size, MemoryUsage::kDeviceLocal, MemoryKind::kOther));
    ASSIGN_OR_RETURN(buffers.dst,
                     allocator.Allocate(size, MemoryUsage::kDeviceLocal, MemoryKind::kOther));
    // Random bytes (xorshift64*), 16 MiB of them tiled over the source on the GPU.
    const uint64_t chunk = std::min<uint64_t>(size, 16 * kMiB);
    buffers.pattern.resize(chunk);
    uint64_t x = 0x9e3779b97f4a7c15ull ^ size;
    for (uint64_t i = 0; i < chunk; i += 8) {
      x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
      const uint64_t r = x * 0x2545f4914f6cdd1dull;
      std::memcpy(buffers.pattern.data() + i, &r, std::min<uint64_t>(8, chunk - i));
    }
    RETURN_IF_ERROR(Upload(allocator, buffers.src, 0, buffers.pattern));
    if (chunk < size) {
      ASSIGN_OR_RETURN(auto cb, CommandBuffer::Create(*g_gpu->device));
      RETURN_IF_ERROR(cb->Begin());
      for (uint64_t off = chunk; off < size; off += chunk) {
        const uint64_t n = std::min(chunk, size - off);
        RETURN_IF_ERROR(cb->Copy(buffers.src.range(0, n), buffers.src.range(off, n), "tile"));
      }
      RETURN_IF_ERROR(cb->End());
      ASSIGN_OR_RETURN(uint64_t value, g_gpu->device->queue().Submit(*cb));
      RETURN_IF_ERROR(g_gpu->device->queue().Wait(value));
    }
    buffers.size = size;
    return absl::OkStatus();
  }();
  if (!status.ok()) buffers = CopyBuffers{};
  return buffers;
}

absl::Status Poison(const Buffer& buffer) {
  ASSIGN_OR_RETURN(auto cb, CommandBuffer::Create(*g_gpu->device));
  RETURN_IF_ERROR(cb->Begin());
  RETURN_IF_ERROR(cb->Fill(buffer.range(), kPoison, "poison"));
  RETURN_IF_ERROR(cb->End());
  ASSIGN_OR_RETURN(uint64_t value, g_gpu->device->queue().Submit(*cb));
  return g_gpu->device->queue().Wait(value);
}

// Compares dst with the source pattern, 64 MiB at a time.
absl::Status Verify(const CopyBuffers& b) {
  const uint64_t step = 64 * kMiB;
  std::vector<uint8_t> host(std::min(b.size, step));
  for (uint64_t off = 0; off < b.size; off += step) {
    const uint64_t n = std::min(step, b.size - off);
    RETURN_IF_ERROR(Download(*g_gpu->allocator, b.dst, off, {host.data(), n}));
    const uint64_t period = b.pattern.size();
    for (uint64_t i = 0; i < n; i += period) {
      const uint64_t m = std::min(period, n - i);
      // off and step are multiples of the pattern's period (a power of two <= 16 MiB).
      if (std::memcmp(host.data() + i, b.pattern.data(), m) != 0) {
        return absl::DataLossError(absl::StrCat("copy result differs from the source in the ", m,
                                                " bytes at offset ", off + i));
      }
    }
  }
  return absl::OkStatus();
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// Submits the recorded `cb` (whose timed commands are `ops` equal operations)
// once per iteration, sets the manual time to the GPU span of the submission,
// and returns the per-operation GPU times in ns. A few untimed warm-up
// submissions come first (clocks, first-use costs).
std::vector<double> RunTimed(benchmark::State& state, CommandBuffer& cb, uint32_t ops) {
  Queue& queue = g_gpu->device->queue();
  std::vector<double> per_op_ns;
  auto submit = [&]() -> absl::StatusOr<double> {
    ASSIGN_OR_RETURN(uint64_t value, queue.Submit(cb));
    RETURN_IF_ERROR(queue.Wait(value));
    ASSIGN_OR_RETURN(std::vector<TimestampSpan> spans, cb.ReadTimestamps());
    if (spans.size() != ops) return absl::InternalError("timestamp count mismatch");
    return static_cast<double>(spans.back().end_ns - spans.front().start_ns);
  };
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<double> warm = submit();
    if (!warm.ok()) {
      state.SkipWithError(std::string(warm.status().ToString()).c_str());
      return {};
    }
  }
  for (auto _ : state) {
    absl::StatusOr<double> ns = submit();
    if (!ns.ok()) {
      state.SkipWithError(std::string(ns.status().ToString()).c_str());
      return {};
    }
    state.SetIterationTime(*ns * 1e-9);
    per_op_ns.push_back(*ns / ops);
  }
  return per_op_ns;
}

// Back-to-back copies per submission: enough to make a submission long
// against timestamp and submission overheads, few for the largest sizes.
uint32_t CopiesPerSubmission(uint64_t size) {
  return static_cast<uint32_t>(std::clamp<uint64_t>((uint64_t{4} << 30) / size, 4, 64));
}

void ReportCopy(benchmark::State& state, const std::vector<double>& per_copy_ns, uint64_t size,
                uint32_t copies) {
  if (per_copy_ns.empty()) return;
  const double median = Median(per_copy_ns);
  state.counters["GB/s"] = static_cast<double>(size) / median;  // bytes per ns = GB/s
  state.counters["us_per_copy"] = median * 1e-3;
  state.counters["copies_per_submit"] = copies;
  state.counters["bytes"] = static_cast<double>(size);
}

void BM_CopyBuffer(benchmark::State& state, uint64_t size) {
  absl::Status status;
  CopyBuffers& b = BuffersFor(size, status);
  if (!status.ok()) return state.SkipWithError(status.ToString().c_str());
  if (status = Poison(b.dst); !status.ok()) return state.SkipWithError(status.ToString().c_str());
  const uint32_t copies = CopiesPerSubmission(size);
  auto cb = CommandBuffer::Create(*g_gpu->device, {.max_timed_commands = copies});
  if (!cb.ok()) return state.SkipWithError(cb.status().ToString().c_str());
  status = [&]() -> absl::Status {
    RETURN_IF_ERROR((*cb)->Begin());
    for (uint32_t i = 0; i < copies; ++i)
      RETURN_IF_ERROR((*cb)->Copy(b.src.range(), b.dst.range()));
    return (*cb)->End();
  }();
  if (!status.ok()) return state.SkipWithError(status.ToString().c_str());
  const std::vector<double> per_copy = RunTimed(state, **cb, copies);
  if (per_copy.empty()) return;
  if (status = Verify(b); !status.ok()) return state.SkipWithError(status.ToString().c_str());
  ReportCopy(state, per_copy, size, copies);
}

void BM_ShaderCopy(benchmark::State& state, uint64_t size, uint32_t wg, uint32_t ept) {
  const DeviceInfo& info = g_gpu->device->info();
  const uint64_t n = size / 16;
  const uint64_t groups = (n + uint64_t{wg} * ept - 1) / (uint64_t{wg} * ept);
  if (size % 16 != 0 || n > UINT32_MAX)
    return state.SkipWithError("size must be a multiple of 16 below 64 GiB");
  if (groups > info.max_workgroup_count[0]) {
    return state.SkipWithError(absl::StrCat(groups, " workgroups exceed the device's ",
                                            info.max_workgroup_count[0], "; raise ept")
                                   .c_str());
  }
  absl::Status status;
  CopyBuffers& b = BuffersFor(size, status);
  if (!status.ok()) return state.SkipWithError(status.ToString().c_str());
  if (status = Poison(b.dst); !status.ok()) return state.SkipWithError(status.ToString().c_str());
  PipelineDesc desc;
  desc.name = "gpu/copy_vec4";
  desc.spirv = shaders::Find(desc.name);
  desc.num_bindings = 2;
  desc.push_constant_bytes = 4;
  desc.local_size = {wg, 1, 1};
  desc.spec_constants = {ept};
  auto pipeline = g_gpu->pipelines->Get(desc);
  if (!pipeline.ok()) return state.SkipWithError(pipeline.status().ToString().c_str());
  const uint32_t copies = CopiesPerSubmission(size);
  auto cb = CommandBuffer::Create(*g_gpu->device, {.max_timed_commands = copies});
  if (!cb.ok()) return state.SkipWithError(cb.status().ToString().c_str());
  const uint32_t n32 = static_cast<uint32_t>(n);
  uint8_t push[4];
  std::memcpy(push, &n32, 4);
  const Binding bindings[] = {{b.src.range(), Access::kRead}, {b.dst.range(), Access::kWrite}};
  status = [&]() -> absl::Status {
    RETURN_IF_ERROR((*cb)->Begin());
    for (uint32_t i = 0; i < copies; ++i) {
      RETURN_IF_ERROR(
          (*cb)->Dispatch(*pipeline, bindings, push, {static_cast<uint32_t>(groups), 1, 1}));
    }
    return (*cb)->End();
  }();
  if (!status.ok()) return state.SkipWithError(status.ToString().c_str());
  const std::vector<double> per_copy = RunTimed(state, **cb, copies);
  if (per_copy.empty()) return;
  if (status = Verify(b); !status.ok()) return state.SkipWithError(status.ToString().c_str());
  ReportCopy(state, per_copy, size, copies);
  state.counters["workgroups"] = static_cast<double>(groups);
}

// Reads `size` random bytes of a device-local output into host memory that
// is reused (touched before timing, as the server's output buffer pool keeps
// its buffers), either straight from the output's mapping or after a GPU copy
// into a host-cached staging buffer. Manual time = wall time of the whole
// readback; "GB/s" = bytes read back per ns of it. Verifies the bytes.
void BM_Readback(benchmark::State& state, uint64_t size, bool staged, int threads) {
  absl::Status status;
  CopyBuffers& b = BuffersFor(size, status);
  if (!status.ok()) return state.SkipWithError(status.ToString().c_str());
  Allocator& allocator = *g_gpu->allocator;
  auto output = allocator.Allocate(size, MemoryUsage::kDeviceLocal, MemoryKind::kIo);
  if (!output.ok()) return state.SkipWithError(output.status().ToString().c_str());
  if (!staged && (output->mapped() == nullptr || !allocator.device_local_is_host_readable())) {
    return state.SkipWithError("device-local memory is not host-readable here");
  }
  absl::StatusOr<Buffer> staging = Buffer{};
  if (staged) staging = allocator.Allocate(size, MemoryUsage::kHostReadback, MemoryKind::kStaging);
  if (!staging.ok()) return state.SkipWithError(staging.status().ToString().c_str());
  auto fill = CommandBuffer::Create(*g_gpu->device);
  auto to_staging = CommandBuffer::Create(*g_gpu->device);
  if (!fill.ok() || !to_staging.ok()) return state.SkipWithError("command buffer");
  status = [&]() -> absl::Status {
    RETURN_IF_ERROR((*fill)->Begin());
    RETURN_IF_ERROR((*fill)->Copy(b.src.range(), output->range(), "fill"));
    RETURN_IF_ERROR((*fill)->End());
    ASSIGN_OR_RETURN(uint64_t value, g_gpu->device->queue().Submit(**fill));
    RETURN_IF_ERROR(g_gpu->device->queue().Wait(value));
    if (!staged) return absl::OkStatus();
    RETURN_IF_ERROR((*to_staging)->Begin());
    RETURN_IF_ERROR((*to_staging)->Copy(output->range(), staging->range(), "readback"));
    return (*to_staging)->End();
  }();
  if (!status.ok()) return state.SkipWithError(status.ToString().c_str());
  ParallelCopy copier(threads, /*min_bytes=*/0);
  std::vector<uint8_t> host(size, 0);
  const Buffer& from = staged ? *staging : *output;
  std::vector<double> ns;
  auto once = [&]() -> absl::Status {
    const auto start = std::chrono::steady_clock::now();
    if (staged) {
      ASSIGN_OR_RETURN(uint64_t value, g_gpu->device->queue().Submit(**to_staging));
      RETURN_IF_ERROR(g_gpu->device->queue().Wait(value));
    }
    from.InvalidateForHostRead(0, size);
    copier.Copy(host.data(), from.mapped(), size);
    ns.push_back(
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
    return absl::OkStatus();
  };
  for (int i = 0; i < 2 && status.ok(); ++i) status = once();  // warm-up
  ns.clear();
  for (auto _ : state) {
    if (status = once(); !status.ok()) return state.SkipWithError(status.ToString().c_str());
    state.SetIterationTime(ns.back() * 1e-9);
  }
  const uint64_t period = b.pattern.size();
  for (uint64_t off = 0; off < size; off += period) {
    if (std::memcmp(host.data() + off, b.pattern.data(), std::min(period, size - off)) != 0) {
      return state.SkipWithError(absl::StrCat("readback differs at offset ", off).c_str());
    }
  }
  const double median = Median(ns);
  state.counters["GB/s"] = static_cast<double>(size) / median;
  state.counters["ms"] = median * 1e-6;
  state.counters["threads"] = threads;
}

// vkCmdCopyBuffer on every queue family that can copy, through a small raw
// Vulkan device of its own (gpu::Device always takes the compute family),
// to tell whether the copy's speed depends on the queue it runs on. The same
// measurement as BM_CopyBuffer (R copies with a transfer barrier between
// them, first start to last end), except that the source holds a 32-bit fill
// pattern and the result is not checked; the device's own family is included
// as the control.
class RawFamilyCopy {
 public:
  static absl::StatusOr<std::unique_ptr<RawFamilyCopy>> Create(VkPhysicalDevice pd, uint32_t family,
                                                               uint64_t size, uint32_t copies) {
    auto r = std::unique_ptr<RawFamilyCopy>(new RawFamilyCopy());
    r->copies_ = copies;
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(pd, &props);
    r->period_ = props.limits.timestampPeriod;
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, families.data());
    const uint32_t bits = families.at(family).timestampValidBits;
    if (bits == 0) return absl::FailedPreconditionError("queue family has no timestamps");
    r->mask_ = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{};
    queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue_info.queueFamilyIndex = family;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    VkPhysicalDeviceVulkan12Features f12{};
    f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    f12.hostQueryReset = VK_TRUE;  // vkCmdResetQueryPool is not allowed on transfer-only queues
    VkDeviceCreateInfo device_info{};
    device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    device_info.pNext = &f12;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    VK_RETURN_IF_ERROR(vkCreateDevice(pd, &device_info, nullptr, &r->dev_));
    vkGetDeviceQueue(r->dev_, family, 0, &r->queue_);

    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(pd, &mem);
    for (auto [buffer, memory] :
         {std::pair{&r->src_, &r->src_mem_}, std::pair{&r->dst_, &r->dst_mem_}}) {
      VkBufferCreateInfo buffer_info{};
      buffer_info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
      buffer_info.size = size;
      buffer_info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
      VK_RETURN_IF_ERROR(vkCreateBuffer(r->dev_, &buffer_info, nullptr, buffer));
      VkMemoryRequirements req;
      vkGetBufferMemoryRequirements(r->dev_, *buffer, &req);
      // Device-local, preferring a type that is not host-visible (plain VRAM).
      int type = -1;
      for (uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
        const VkMemoryPropertyFlags f = mem.memoryTypes[i].propertyFlags;
        if (!(req.memoryTypeBits & (1u << i)) || !(f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
          continue;
        if (type < 0 || !(f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) type = static_cast<int>(i);
        if (!(f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) break;
      }
      if (type < 0) return absl::NotFoundError("no device-local memory type");
      VkMemoryAllocateInfo alloc{};
      alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
      alloc.allocationSize = req.size;
      alloc.memoryTypeIndex = static_cast<uint32_t>(type);
      VK_RETURN_IF_ERROR(vkAllocateMemory(r->dev_, &alloc, nullptr, memory));
      VK_RETURN_IF_ERROR(vkBindBufferMemory(r->dev_, *buffer, *memory, 0));
    }
    VkCommandPoolCreateInfo pool_info{};
    pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pool_info.queueFamilyIndex = family;
    VK_RETURN_IF_ERROR(vkCreateCommandPool(r->dev_, &pool_info, nullptr, &r->pool_));
    VkCommandBufferAllocateInfo cb_info{};
    cb_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cb_info.commandPool = r->pool_;
    cb_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cb_info.commandBufferCount = 1;
    VK_RETURN_IF_ERROR(vkAllocateCommandBuffers(r->dev_, &cb_info, &r->cb_));
    VkQueryPoolCreateInfo query_info{};
    query_info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    query_info.queryCount = 2 * copies;
    VK_RETURN_IF_ERROR(vkCreateQueryPool(r->dev_, &query_info, nullptr, &r->queries_));
    VkFenceCreateInfo fence_info{};
    fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    VK_RETURN_IF_ERROR(vkCreateFence(r->dev_, &fence_info, nullptr, &r->fence_));

    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    VK_RETURN_IF_ERROR(vkBeginCommandBuffer(r->cb_, &begin));
    VkMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdFillBuffer(r->cb_, r->src_, 0, size, 0x9e3779b9u);
    for (uint32_t i = 0; i < copies; ++i) {
      vkCmdPipelineBarrier(r->cb_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                           0, 1, &barrier, 0, nullptr, 0, nullptr);
      vkCmdWriteTimestamp(r->cb_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, r->queries_, 2 * i);
      const VkBufferCopy region{0, 0, size};
      vkCmdCopyBuffer(r->cb_, r->src_, r->dst_, 1, &region);
      vkCmdWriteTimestamp(r->cb_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, r->queries_, 2 * i + 1);
    }
    VK_RETURN_IF_ERROR(vkEndCommandBuffer(r->cb_));
    return r;
  }

  ~RawFamilyCopy() {
    if (dev_ == VK_NULL_HANDLE) return;
    vkDeviceWaitIdle(dev_);
    vkDestroyFence(dev_, fence_, nullptr);
    vkDestroyQueryPool(dev_, queries_, nullptr);
    vkDestroyCommandPool(dev_, pool_, nullptr);
    vkDestroyBuffer(dev_, src_, nullptr);
    vkDestroyBuffer(dev_, dst_, nullptr);
    vkFreeMemory(dev_, src_mem_, nullptr);
    vkFreeMemory(dev_, dst_mem_, nullptr);
    vkDestroyDevice(dev_, nullptr);
  }

  // One submission; returns ns from the first copy's start to the last's end.
  absl::StatusOr<double> Run() {
    vkResetQueryPool(dev_, queries_, 0, 2 * copies_);
    VK_RETURN_IF_ERROR(vkResetFences(dev_, 1, &fence_));
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb_;
    VK_RETURN_IF_ERROR(vkQueueSubmit(queue_, 1, &submit, fence_));
    VK_RETURN_IF_ERROR(vkWaitForFences(dev_, 1, &fence_, VK_TRUE, UINT64_MAX));
    std::vector<uint64_t> ticks(2 * copies_);
    VK_RETURN_IF_ERROR(vkGetQueryPoolResults(
        dev_, queries_, 0, 2 * copies_, ticks.size() * sizeof(uint64_t), ticks.data(),
        sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    return static_cast<double>((ticks.back() & mask_) - (ticks.front() & mask_)) * period_;
  }

 private:
  RawFamilyCopy() = default;
  uint32_t copies_ = 0;
  double period_ = 1;
  uint64_t mask_ = ~uint64_t{0};
  VkDevice dev_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkBuffer src_ = VK_NULL_HANDLE, dst_ = VK_NULL_HANDLE;
  VkDeviceMemory src_mem_ = VK_NULL_HANDLE, dst_mem_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
};

void BM_FamilyCopy(benchmark::State& state, uint32_t family, uint64_t size) {
  const uint32_t copies = CopiesPerSubmission(size);
  auto raw = RawFamilyCopy::Create(g_gpu->device->physical_device(), family, size, copies);
  if (!raw.ok()) return state.SkipWithError(raw.status().ToString().c_str());
  for (int i = 0; i < 3; ++i) {
    if (auto warm = (*raw)->Run(); !warm.ok())
      return state.SkipWithError(warm.status().ToString().c_str());
  }
  std::vector<double> per_copy;
  for (auto _ : state) {
    absl::StatusOr<double> ns = (*raw)->Run();
    if (!ns.ok()) {
      state.SkipWithError(ns.status().ToString().c_str());
      return;
    }
    state.SetIterationTime(*ns * 1e-9);
    per_copy.push_back(*ns / copies);
  }
  ReportCopy(state, per_copy, size, copies);
  state.counters["queue_family"] = family;
}

std::string QueueFlagsName(VkQueueFlags flags) {
  std::string s;
  if (flags & VK_QUEUE_GRAPHICS_BIT) s += "graphics+";
  if (flags & VK_QUEUE_COMPUTE_BIT) s += "compute+";
  if (flags & VK_QUEUE_TRANSFER_BIT) s += "transfer+";
  if (s.empty()) return "none";
  s.pop_back();
  return s;
}

void BM_FmaThroughput(benchmark::State& state, uint32_t wg, uint32_t groups, uint32_t iterations) {
  const uint64_t invocations = uint64_t{wg} * groups;
  auto out =
      g_gpu->allocator->Allocate(invocations * 4, MemoryUsage::kDeviceLocal, MemoryKind::kOther);
  if (!out.ok()) return state.SkipWithError(out.status().ToString().c_str());
  PipelineDesc desc;
  desc.name = "gpu/fma_throughput";
  desc.spirv = shaders::Find(desc.name);
  desc.num_bindings = 1;
  desc.push_constant_bytes = 8;
  desc.local_size = {wg, 1, 1};
  desc.spec_constants = {iterations};
  auto pipeline = g_gpu->pipelines->Get(desc);
  if (!pipeline.ok()) return state.SkipWithError(pipeline.status().ToString().c_str());
  auto cb = CommandBuffer::Create(*g_gpu->device, {.max_timed_commands = 1});
  if (!cb.ok()) return state.SkipWithError(cb.status().ToString().c_str());
  // c = c * a + b stays finite and non-trivial: a < 1 pulls c towards b / (1 - a).
  const float params[2] = {0.999f, 0.001f};
  uint8_t push[8];
  std::memcpy(push, params, 8);
  const Binding bindings[] = {{out->range(), Access::kWrite}};
  absl::Status status = [&]() -> absl::Status {
    RETURN_IF_ERROR((*cb)->Begin());
    RETURN_IF_ERROR((*cb)->Dispatch(*pipeline, bindings, push, {groups, 1, 1}, "fma"));
    return (*cb)->End();
  }();
  if (!status.ok()) return state.SkipWithError(status.ToString().c_str());
  const std::vector<double> per_dispatch = RunTimed(state, **cb, 1);
  if (per_dispatch.empty()) return;
  float first = 0;
  if (status = Download(*g_gpu->allocator, *out, 0, {reinterpret_cast<uint8_t*>(&first), 4});
      !status.ok() || !(first > 0.0f && first < 1e6f)) {
    return state.SkipWithError(
        absl::StrCat("implausible FMA result ", first, " ", status.ToString()).c_str());
  }
  const double median = Median(per_dispatch);
  const double flops = static_cast<double>(invocations) * iterations * 8 * 4 * 2;
  state.counters["TFLOP/s"] = flops / median * 1e-3;  // FLOP per ns = GFLOP/s
  state.counters["us_per_dispatch"] = median * 1e-3;
  state.counters["invocations"] = static_cast<double>(invocations);
}

std::vector<uint64_t> ParseSizes(std::string_view list) {
  std::vector<uint64_t> sizes;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string item(list.substr(0, comma));
    const double mib = std::atof(item.c_str());
    if (mib > 0) sizes.push_back(static_cast<uint64_t>(mib * kMiB) / 16 * 16);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return sizes;
}

// Opens the instance, the device `selector` names (empty: the first), an
// allocator and a pipeline cache into `gpu`.
absl::Status OpenGpu(const std::string& selector, Gpu* gpu) {
  ASSIGN_OR_RETURN(gpu->instance, Instance::Create());
  ASSIGN_OR_RETURN(gpu->device, Device::Create(*gpu->instance, {.selector = selector}));
  ASSIGN_OR_RETURN(gpu->allocator, Allocator::Create(*gpu->device));
  ASSIGN_OR_RETURN(gpu->pipelines, PipelineCache::Create(*gpu->device));
  return absl::OkStatus();
}

// The device and conventions, in the report's context.
void AddContext(const Instance& instance, const DeviceInfo& info) {
  benchmark::AddCustomContext("vk_device", info.name);
  benchmark::AddCustomContext("vk_driver", absl::StrCat(info.driver_name, " ", info.driver_info));
  benchmark::AddCustomContext("vk_api", absl::StrCat(VK_API_VERSION_MAJOR(info.api_version), ".",
                                                     VK_API_VERSION_MINOR(info.api_version), ".",
                                                     VK_API_VERSION_PATCH(info.api_version)));
  benchmark::AddCustomContext("vk_validation", instance.validation_enabled() ? "on" : "off");
  benchmark::AddCustomContext(
      "vk_copy_convention", "GB/s = bytes copied (one direction) / median GPU time per copy, 1e9");
}

// vkCmdCopyBuffer and the copy shader at `size` (skipped past `max_size`),
// the shader by elements per thread and workgroup size.
void RegisterCopies(uint64_t size, uint64_t max_size, uint32_t wg, uint32_t max_wg, bool small) {
  if (size > max_size || size == 0) {
    std::fprintf(stderr, "vkserve_gpu_bench: skipping %s: above the device's %llu-byte limit\n",
                 SizeName(size).c_str(), static_cast<unsigned long long>(max_size));
    return;
  }
  const std::string name = SizeName(size);
  benchmark::RegisterBenchmark(("copy/vkCmdCopyBuffer/" + name).c_str(), BM_CopyBuffer, size)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  // Elements per thread: the sweep the H100 run tunes from; the default is ept 4.
  std::vector<std::pair<uint32_t, uint32_t>> variants;  // (wg, ept)
  for (uint32_t ept : {1u, 2u, 4u, 8u}) variants.emplace_back(wg, ept);
  if (!small) {
    for (uint32_t w : {128u, 512u, 1024u}) {
      if (w <= max_wg && w != wg) variants.emplace_back(w, 4u);
    }
  }
  for (auto [w, ept] : variants) {
    benchmark::RegisterBenchmark(
        absl::StrCat("copy/shader/", name, "/wg:", w, "/ept:", ept).c_str(), BM_ShaderCopy, size, w,
        ept)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
}

// Readback of one large output (GPT-2 b8's logits are 206 MB): straight
// from the mapping and staged, by 1 to 8 threads.
void RegisterReadbacks(uint64_t size) {
  for (bool staged : {false, true}) {
    for (int threads : {1, 2, 4, 8}) {
      benchmark::RegisterBenchmark(absl::StrCat("readback/", staged ? "staged/" : "direct/",
                                                SizeName(size), "/threads:", threads)
                                       .c_str(),
                                   BM_Readback, size, staged, threads)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

// vkCmdCopyBuffer of `size` on each queue family that can copy.
void RegisterFamilyCopies(const DeviceInfo& info, uint64_t size) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(info.physical_device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(info.physical_device, &count, families.data());
  for (uint32_t f = 0; f < count; ++f) {
    const VkQueueFlags flags = families[f].queueFlags;
    if (!(flags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT)) ||
        families[f].timestampValidBits == 0) {
      continue;
    }
    benchmark::RegisterBenchmark(
        absl::StrCat("copy/vkCmdCopyBuffer_family/", f, ":", QueueFlagsName(flags),
                     f == info.compute_queue_family ? "(vkserve)" : "", "/", SizeName(size))
            .c_str(),
        BM_FamilyCopy, f, size)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
}

int Main(int argc, char** argv) {
  std::string selector;
  if (const char* env = std::getenv("VKSERVE_DEVICE")) selector = env;
  std::string sizes_flag;
  bool small = false;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--device=")) {
      selector = std::string(arg.substr(9));
    } else if (arg.starts_with("--sizes_mib=")) {
      sizes_flag = std::string(arg.substr(12));
    } else if (arg == "--small") {
      small = true;
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 2;

  Gpu gpu;
  g_gpu = &gpu;
  if (absl::Status opened = OpenGpu(selector, &gpu); !opened.ok()) {
    std::fprintf(stderr, "vkserve_gpu_bench: %s\n", opened.ToString().c_str());
    return 1;
  }
  const DeviceInfo& info = gpu.device->info();
  small = small || info.type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  AddContext(*gpu.instance, info);

  std::vector<uint64_t> sizes = ParseSizes(sizes_flag);
  if (sizes.empty()) {
    sizes = small ? std::vector<uint64_t>{kMiB, 16 * kMiB}
                  : std::vector<uint64_t>{kMiB, 16 * kMiB, 256 * kMiB, 1024 * kMiB};
  }
  const uint64_t max_size = std::min(info.max_storage_buffer_range, info.max_allocation_size);
  const uint32_t max_wg = std::min(info.max_workgroup_invocations, info.max_workgroup_size[0]);
  const uint32_t wg = std::min<uint32_t>(256, max_wg);

  for (uint64_t size : sizes) RegisterCopies(size, max_size, wg, max_wg, small);
  RegisterReadbacks(std::min<uint64_t>(small ? 16 * kMiB : 256 * kMiB, max_size));
  RegisterFamilyCopies(info, std::min<uint64_t>(small ? 16 * kMiB : 256 * kMiB, max_size));
  // FMA: on a GPU, 2M invocations x 1024 iterations (137 GFLOP, a few ms on
  // an H100, far more threads than one can hold); on a CPU device, a token.
  const uint32_t fma_groups = small ? 64 : (uint32_t{1} << 21) / wg;
  const uint32_t fma_iters = small ? 64 : 1024;
  benchmark::RegisterBenchmark(
      absl::StrCat("fma_fp32/wg:", wg, "/groups:", fma_groups, "/iters:", fma_iters).c_str(),
      BM_FmaThroughput, wg, fma_groups, fma_iters)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  gpu.pipelines.reset();
  g_buffers = CopyBuffers{};
  gpu.allocator.reset();
  const int messages = gpu.instance->validation_message_count();
  gpu.device.reset();
  if (messages > 0) {
    std::fprintf(stderr, "vkserve_gpu_bench: %d validation messages\n", messages);
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace vkserve::gpu

int main(int argc, char** argv) { return vkserve::gpu::Main(argc, argv); }
