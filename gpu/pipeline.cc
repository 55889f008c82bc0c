// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/pipeline.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "gpu/vk_status.h"
#include "spdlog/spdlog.h"

namespace vkserve::gpu {
namespace {

std::string StatisticValue(const VkPipelineExecutableStatisticKHR& s) {
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      return s.value.b32 ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      return absl::StrCat(s.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      return absl::StrCat(s.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
      return absl::StrCat(s.value.f64);
    default:
      return "?";
  }
}

// Every executable's statistics (a compute pipeline usually has one), as
// "name value" strings; executables after the first are prefixed with theirs.
absl::StatusOr<std::vector<std::string>> Statistics(const Device& device, VkPipeline pipeline) {
  VkDevice dev = device.handle();
  auto properties_fn = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
      vkGetDeviceProcAddr(dev, "vkGetPipelineExecutablePropertiesKHR"));
  auto statistics_fn = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      vkGetDeviceProcAddr(dev, "vkGetPipelineExecutableStatisticsKHR"));
  if (properties_fn == nullptr || statistics_fn == nullptr) {
    return absl::InternalError("vkGetPipelineExecutable*KHR not found on a device that has them");
  }
  VkPipelineInfoKHR info{};
  info.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR;
  info.pipeline = pipeline;
  uint32_t executables = 0;
  VK_RETURN_IF_ERROR(properties_fn(dev, &info, &executables, nullptr));
  VkPipelineExecutablePropertiesKHR blank_props{};
  blank_props.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
  std::vector<VkPipelineExecutablePropertiesKHR> props(executables, blank_props);
  VK_RETURN_IF_ERROR(properties_fn(dev, &info, &executables, props.data()));
  std::vector<std::string> out;
  for (uint32_t e = 0; e < executables; ++e) {
    VkPipelineExecutableInfoKHR exec{};
    exec.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR;
    exec.pipeline = pipeline;
    exec.executableIndex = e;
    uint32_t count = 0;
    VK_RETURN_IF_ERROR(statistics_fn(dev, &exec, &count, nullptr));
    VkPipelineExecutableStatisticKHR blank{};
    blank.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
    std::vector<VkPipelineExecutableStatisticKHR> stats(count, blank);
    VK_RETURN_IF_ERROR(statistics_fn(dev, &exec, &count, stats.data()));
    const std::string prefix = e == 0 ? "" : absl::StrCat(props[e].name, " ");
    for (uint32_t i = 0; i < count; ++i) {
      out.push_back(absl::StrCat(prefix, stats[i].name, " ", StatisticValue(stats[i])));
    }
  }
  return out;
}

}  // namespace
namespace {

// Checks a VkPipelineCache blob's header (VkPipelineCacheHeaderVersionOne)
// against the device. Returns an empty string when it matches.
std::string HeaderMismatch(const std::vector<char>& data, const DeviceInfo& info) {
  if (data.size() < 16 + VK_UUID_SIZE) return "file shorter than a pipeline cache header";
  uint32_t header_size, header_version, vendor, device;
  std::memcpy(&header_size, data.data() + 0, 4);
  std::memcpy(&header_version, data.data() + 4, 4);
  std::memcpy(&vendor, data.data() + 8, 4);
  std::memcpy(&device, data.data() + 12, 4);
  if (header_size < 16 + VK_UUID_SIZE || header_size > data.size()) return "bad header size";
  if (header_version != VK_PIPELINE_CACHE_HEADER_VERSION_ONE) return "unknown header version";
  if (vendor != info.vendor_id || device != info.device_id) return "written for another device";
  if (std::memcmp(data.data() + 16, info.pipeline_cache_uuid.data(), VK_UUID_SIZE) != 0) {
    return "written by another driver version (pipelineCacheUUID differs)";
  }
  return "";
}

}  // namespace

absl::StatusOr<std::unique_ptr<PipelineCache>> PipelineCache::Create(const Device& device,
                                                                     std::string path,
                                                                     size_t max_pipelines) {
  auto cache = std::unique_ptr<PipelineCache>(new PipelineCache(device));
  cache->path_ = std::move(path);
  cache->max_pipelines_ = max_pipelines;
  std::vector<char> data;
  if (!cache->path_.empty()) {
    std::ifstream in(cache->path_, std::ios::binary);
    if (in) {
      data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      cache->ignored_reason_ = HeaderMismatch(data, device.info());
      if (!cache->ignored_reason_.empty()) data.clear();
    }
  }
  VkPipelineCacheCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  info.initialDataSize = data.size();
  info.pInitialData = data.empty() ? nullptr : data.data();
  VkPipelineCache raw = VK_NULL_HANDLE;
  VK_RETURN_IF_ERROR(vkCreatePipelineCache(device.handle(), &info, nullptr, &raw));
  cache->cache_ = PipelineCacheHandle(device.handle(), raw);
  cache->loaded_from_disk_ = !data.empty();
  return cache;
}

absl::StatusOr<std::shared_ptr<const Pipeline>> PipelineCache::Get(const PipelineDesc& desc) {
  std::string key = absl::StrCat(desc.name, "/", desc.spirv.size(), "/", desc.num_bindings, "/",
                                 desc.push_constant_bytes, "/", absl::StrJoin(desc.local_size, ","),
                                 "/", absl::StrJoin(desc.spec_constants, ","), "/",
                                 desc.required_subgroup_size);
  std::shared_ptr<Compile> compile;
  {
    MutexLock lock(&mutex_);
    auto it = pipelines_.find(key);
    if (it != pipelines_.end()) {
      it->second.last_use = ++use_clock_;
      return it->second.pipeline;
    }
    // One compile per key: a thread asking for a pipeline another is
    // compiling waits for that one (plans build their kernels in parallel,
    // and a model's layers ask for the same pipelines).
    auto [pending, first] = compiling_.try_emplace(key);
    if (!first) {
      compile = pending->second;
      mutex_.Await(Condition(&compile->done));
      return compile->result;
    }
    pending->second = compile = std::make_shared<Compile>();
    ++compiles_;
  }
  // Created outside the lock: compiling can take a second, and other
  // pipelines should not wait.
  absl::StatusOr<std::shared_ptr<const Pipeline>> created = Create(desc);
  MutexLock lock(&mutex_);
  compile->result = created;
  compile->done = true;
  compiling_.erase(key);
  if (!created.ok()) return created.status();
  Entry& entry = pipelines_.emplace(key, Entry{*std::move(created), 0}).first->second;
  entry.last_use = ++use_clock_;
  std::shared_ptr<const Pipeline> result = entry.pipeline;  // held: not evictable below
  EvictOverBudget();
  return result;
}

void PipelineCache::EvictOverBudget() {
  // A linear scan per eviction: the budget is thousands, and an eviction
  // follows a compile that took far longer.
  while (pipelines_.size() > max_pipelines_) {
    auto oldest = pipelines_.end();
    for (auto it = pipelines_.begin(); it != pipelines_.end(); ++it) {
      // Copies are only made under mutex_, so a count of 1 cannot rise here.
      if (it->second.pipeline.use_count() != 1) continue;
      if (oldest == pipelines_.end() || it->second.last_use < oldest->second.last_use) oldest = it;
    }
    if (oldest == pipelines_.end()) return;  // everything is in use
    pipelines_.erase(oldest);
    ++evictions_;
  }
}

namespace {

// `desc` against the device's limits: SPIR-V magic, push constant size,
// workgroup size.
absl::Status CheckDesc(const PipelineDesc& desc, const DeviceInfo& info) {
  if (desc.spirv.empty() || desc.spirv[0] != 0x07230203u) {
    return absl::InvalidArgumentError(absl::StrCat("pipeline '", desc.name, "': not SPIR-V"));
  }
  if (desc.push_constant_bytes % 4 != 0 || desc.push_constant_bytes > info.max_push_constants) {
    return absl::InvalidArgumentError(
        absl::StrCat("pipeline '", desc.name, "': ", desc.push_constant_bytes,
                     " bytes of push constants (device allows ", info.max_push_constants, ")"));
  }
  const uint64_t invocations =
      uint64_t{desc.local_size[0]} * desc.local_size[1] * desc.local_size[2];
  for (int i = 0; i < 3; ++i) {
    if (desc.local_size[i] == 0 || desc.local_size[i] > info.max_workgroup_size[i] ||
        invocations > info.max_workgroup_invocations) {
      return absl::InvalidArgumentError(absl::StrCat("pipeline '", desc.name, "': workgroup ",
                                                     absl::StrJoin(desc.local_size, "x"),
                                                     " exceeds the device limits"));
    }
  }
  if (desc.required_subgroup_size != 0 && !info.RunsSubgroupsOf(desc.required_subgroup_size)) {
    return absl::FailedPreconditionError(
        absl::StrCat("pipeline '", desc.name, "' needs subgroups of ", desc.required_subgroup_size,
                     " invocations; the device runs ", info.subgroup_size,
                     info.min_subgroup_size > 0
                         ? absl::StrCat(" (", info.min_subgroup_size, "-", info.max_subgroup_size,
                                        " on request)")
                         : ""));
  }
  return absl::OkStatus();
}

// One storage buffer per binding, all for the compute stage.
absl::StatusOr<DescriptorSetLayoutHandle> CreateSetLayout(const Device& device,
                                                          uint32_t num_bindings) {
  std::vector<VkDescriptorSetLayoutBinding> bindings(num_bindings);
  for (uint32_t i = 0; i < num_bindings; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo set_info{};
  set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  if (device.uses_push_descriptors()) {
    set_info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  }
  set_info.bindingCount = num_bindings;
  set_info.pBindings = bindings.data();
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VK_RETURN_IF_ERROR(vkCreateDescriptorSetLayout(device.handle(), &set_info, nullptr, &set_layout));
  return DescriptorSetLayoutHandle(device.handle(), set_layout);
}

absl::StatusOr<PipelineLayoutHandle> CreateLayout(const Device& device,
                                                  VkDescriptorSetLayout set_layout,
                                                  uint32_t push_constant_bytes) {
  VkPushConstantRange push{};
  push.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  push.size = push_constant_bytes;
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout;
  layout_info.pushConstantRangeCount = push_constant_bytes > 0 ? 1 : 0;
  layout_info.pPushConstantRanges = &push;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VK_RETURN_IF_ERROR(vkCreatePipelineLayout(device.handle(), &layout_info, nullptr, &layout));
  return PipelineLayoutHandle(device.handle(), layout);
}

// The compute pipeline of `desc`'s SPIR-V, its local size and then its
// specialization constants as constants 0, 1, 2, 3, ...
absl::StatusOr<PipelineHandle> CreateComputePipeline(const Device& device, VkPipelineCache cache,
                                                     const PipelineDesc& desc,
                                                     VkPipelineLayout layout) {
  VkDevice dev = device.handle();
  VkShaderModuleCreateInfo module_info{};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = desc.spirv.size() * sizeof(uint32_t);
  module_info.pCode = desc.spirv.data();
  VkShaderModule raw_module = VK_NULL_HANDLE;
  VK_RETURN_IF_ERROR(vkCreateShaderModule(dev, &module_info, nullptr, &raw_module));
  ShaderModuleHandle module(dev, raw_module);

  std::vector<uint32_t> values(desc.local_size.begin(), desc.local_size.end());
  values.insert(values.end(), desc.spec_constants.begin(), desc.spec_constants.end());
  std::vector<VkSpecializationMapEntry> entries(values.size());
  for (uint32_t i = 0; i < values.size(); ++i) {
    entries[i] = {i, i * 4, 4};
  }
  VkSpecializationInfo spec{};
  spec.mapEntryCount = static_cast<uint32_t>(entries.size());
  spec.pMapEntries = entries.data();
  spec.dataSize = values.size() * 4;
  spec.pData = values.data();

  VkComputePipelineCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  create.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  create.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  create.stage.module = raw_module;
  create.stage.pName = "main";
  create.stage.pSpecializationInfo = &spec;
  // A size other than the default is asked for (CheckDesc made sure the
  // device can), with whole subgroups where the workgroup's width allows.
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroup{};
  subgroup.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO;
  subgroup.requiredSubgroupSize = desc.required_subgroup_size;
  const DeviceInfo& info = device.info();
  if (desc.required_subgroup_size != 0 && desc.required_subgroup_size != info.subgroup_size) {
    create.stage.pNext = &subgroup;
    if (info.compute_full_subgroups && desc.local_size[0] % desc.required_subgroup_size == 0) {
      create.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
    }
  }
  create.layout = layout;
  if (device.captures_pipeline_statistics()) {
    create.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  }
  VkPipeline raw_pipeline = VK_NULL_HANDLE;
  VK_RETURN_IF_ERROR(vkCreateComputePipelines(dev, cache, 1, &create, nullptr, &raw_pipeline));
  return PipelineHandle(dev, raw_pipeline);
}

}  // namespace

absl::StatusOr<std::shared_ptr<const Pipeline>> PipelineCache::Create(
    const PipelineDesc& desc) const {
  RETURN_IF_ERROR(CheckDesc(desc, device_->info()));
  auto pipeline = std::shared_ptr<Pipeline>(new Pipeline());
  pipeline->name_ = desc.name;
  pipeline->num_bindings_ = desc.num_bindings;
  pipeline->push_constant_bytes_ = desc.push_constant_bytes;
  pipeline->local_size_ = desc.local_size;
  ASSIGN_OR_RETURN(pipeline->set_layout_, CreateSetLayout(*device_, desc.num_bindings));
  ASSIGN_OR_RETURN(pipeline->layout_,
                   CreateLayout(*device_, pipeline->set_layout_.get(), desc.push_constant_bytes));
  ASSIGN_OR_RETURN(pipeline->pipeline_,
                   CreateComputePipeline(*device_, cache_.get(), desc, pipeline->layout_.get()));
  if (device_->captures_pipeline_statistics()) {
    ASSIGN_OR_RETURN(pipeline->statistics_, Statistics(*device_, pipeline->pipeline_.get()));
    spdlog::info("pipeline {} [{}]: {}", desc.name, absl::StrJoin(desc.spec_constants, ","),
                 absl::StrJoin(pipeline->statistics_, ", "));
  }
  return pipeline;
}

absl::Status PipelineCache::Save() const {
  if (path_.empty()) return absl::OkStatus();
  size_t size = 0;
  VK_RETURN_IF_ERROR(vkGetPipelineCacheData(device_->handle(), cache_.get(), &size, nullptr));
  std::vector<char> data(size);
  VK_RETURN_IF_ERROR(vkGetPipelineCacheData(device_->handle(), cache_.get(), &size, data.data()));
  data.resize(size);
  const std::string tmp = path_ + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write pipeline cache ", tmp));
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) return absl::InternalError(absl::StrCat("writing pipeline cache ", tmp, " failed"));
  }
  if (std::rename(tmp.c_str(), path_.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("cannot rename ", tmp, " to ", path_));
  }
  return absl::OkStatus();
}

size_t PipelineCache::size() const {
  MutexLock lock(&mutex_);
  return pipelines_.size();
}

uint64_t PipelineCache::evictions() const {
  MutexLock lock(&mutex_);
  return evictions_;
}

uint64_t PipelineCache::compiles() const {
  MutexLock lock(&mutex_);
  return compiles_;
}

}  // namespace vkserve::gpu
