// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/command_buffer.h"

#include "absl/strings/str_cat.h"
#include "gpu/queue.h"
#include "gpu/vk_status.h"

namespace vkserve::gpu {
namespace {

constexpr uint32_t kSetsPerPool = 256;

bool Overlaps(VkBuffer buffer, uint64_t begin, uint64_t end, VkBuffer other_buffer,
              uint64_t other_begin, uint64_t other_end) {
  return buffer == other_buffer && begin < other_end && other_begin < end;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CommandBuffer>> CommandBuffer::Create(
    const Device& device, const CommandBufferOptions& options) {
  if (options.max_timed_commands > 0 && device.info().timestamp_valid_bits == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "device '", device.info().name, "' has no timestamp queries on its compute queue"));
  }
  auto cb = std::unique_ptr<CommandBuffer>(new CommandBuffer(device, options));
  VkDevice dev = device.handle();
  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.queueFamilyIndex = device.info().compute_queue_family;
  VkCommandPool pool = VK_NULL_HANDLE;
  VK_RETURN_IF_ERROR(vkCreateCommandPool(dev, &pool_info, nullptr, &pool));
  cb->pool_ = CommandPoolHandle(dev, pool);

  VkCommandBufferAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VK_RETURN_IF_ERROR(vkAllocateCommandBuffers(dev, &alloc, &cb->command_buffer_));

  if (options.max_timed_commands > 0) {
    VkQueryPoolCreateInfo query_info{};
    query_info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    query_info.queryCount = 2 * options.max_timed_commands;
    VkQueryPool queries = VK_NULL_HANDLE;
    VK_RETURN_IF_ERROR(vkCreateQueryPool(dev, &query_info, nullptr, &queries));
    cb->queries_ = QueryPoolHandle(dev, queries);
  }
  return cb;
}

CommandBuffer::~CommandBuffer() {
  // Never free what the GPU may still execute.
  if (last_submission_ != 0) (void)device_->queue().Wait(last_submission_);
}

absl::Status CommandBuffer::Begin(Timing timing) {
  if (last_submission_ != 0) {
    ASSIGN_OR_RETURN(uint64_t completed, device_->queue().CompletedValue());
    if (completed < last_submission_) {
      return absl::FailedPreconditionError(
          "CommandBuffer::Begin: the previous recording is still executing");
    }
  }
  VkDevice dev = device_->handle();
  VK_RETURN_IF_ERROR(vkResetCommandPool(dev, pool_.get(), 0));
  for (uint32_t i = 0; i < descriptor_pool_next_ && i < descriptor_pools_.size(); ++i) {
    VK_RETURN_IF_ERROR(vkResetDescriptorPool(dev, descriptor_pools_[i].get(), 0));
  }
  descriptor_pool_next_ = 0;
  sets_in_current_pool_ = kSetsPerPool;  // forces taking pool 0 on first use
  retained_.clear();
  pending_reads_.clear();
  pending_writes_.clear();
  labels_.clear();
  timing_ = timing;
  timing_open_ = false;
  command_count_ = 0;
  barrier_count_ = 0;
  recorded_ = false;

  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  VK_RETURN_IF_ERROR(vkBeginCommandBuffer(command_buffer_, &begin));
  if (queries_) {
    vkCmdResetQueryPool(command_buffer_, queries_.get(), 0, 2 * options_.max_timed_commands);
  }
  recording_ = true;
  return absl::OkStatus();
}

void CommandBuffer::TrackHazards(std::span<const Binding> accesses) {
  bool hazard = false;
  for (const Binding& b : accesses) {
    const uint64_t begin = b.range.offset, end = b.range.offset + b.range.size;
    for (const Range& w : pending_writes_) {
      hazard = hazard || Overlaps(b.range.buffer, begin, end, w.buffer, w.begin, w.end);
    }
    if (b.access != Access::kRead) {
      for (const Range& r : pending_reads_) {
        hazard = hazard || Overlaps(b.range.buffer, begin, end, r.buffer, r.begin, r.end);
      }
    }
  }
  // A profile runs each command alone: a timestamp waits for the commands
  // before it but holds back none after it, so independent neighbours would
  // overlap and blur each other's times.
  const bool profiled = queries_ && timing_ == Timing::kEachCommand;
  if (hazard || (profiled && (!pending_reads_.empty() || !pending_writes_.empty()))) {
    VkMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                            VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    const VkPipelineStageFlags stages =
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vkCmdPipelineBarrier(command_buffer_, stages, stages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
    ++barrier_count_;
    pending_reads_.clear();
    pending_writes_.clear();
  }
  for (const Binding& b : accesses) {
    const Range r{b.range.buffer, b.range.offset, b.range.offset + b.range.size};
    if (b.access != Access::kWrite) pending_reads_.push_back(r);
    if (b.access != Access::kRead) pending_writes_.push_back(r);
  }
}

absl::StatusOr<VkDescriptorSet> CommandBuffer::AllocateDescriptorSet(VkDescriptorSetLayout layout) {
  VkDevice dev = device_->handle();
  if (sets_in_current_pool_ >= kSetsPerPool) {
    if (descriptor_pool_next_ == descriptor_pools_.size()) {
      VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * 8};
      VkDescriptorPoolCreateInfo info{};
      info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
      info.maxSets = kSetsPerPool;
      info.poolSizeCount = 1;
      info.pPoolSizes = &size;
      VkDescriptorPool pool = VK_NULL_HANDLE;
      VK_RETURN_IF_ERROR(vkCreateDescriptorPool(dev, &info, nullptr, &pool));
      descriptor_pools_.emplace_back(dev, pool);
    }
    ++descriptor_pool_next_;
    sets_in_current_pool_ = 0;
  }
  VkDescriptorSetAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  alloc.descriptorPool = descriptor_pools_[descriptor_pool_next_ - 1].get();
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkResult result = vkAllocateDescriptorSets(dev, &alloc, &set);
  if (result == VK_ERROR_OUT_OF_POOL_MEMORY || result == VK_ERROR_FRAGMENTED_POOL) {
    // More bindings per set than the pool was sized for: take a fresh pool.
    sets_in_current_pool_ = kSetsPerPool;
    return AllocateDescriptorSet(layout);
  }
  if (result != VK_SUCCESS) return VkResultToStatus(result, "vkAllocateDescriptorSets");
  ++sets_in_current_pool_;
  return set;
}

void CommandBuffer::OpenQuery(std::string_view label) {
  timing_open_ = queries_ && labels_.size() < options_.max_timed_commands;
  if (!timing_open_) return;
  const uint32_t query = static_cast<uint32_t>(2 * labels_.size());
  labels_.emplace_back(label);
  vkCmdWriteTimestamp(command_buffer_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, queries_.get(), query);
}

void CommandBuffer::CloseQuery() {
  if (!timing_open_) return;
  const uint32_t query = static_cast<uint32_t>(2 * labels_.size() - 1);
  vkCmdWriteTimestamp(command_buffer_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, queries_.get(), query);
  timing_open_ = false;
}

void CommandBuffer::BeginTimed(std::string_view label) {
  if (timing_ == Timing::kEachCommand) OpenQuery(label);
}

void CommandBuffer::EndTimed() {
  if (timing_ == Timing::kEachCommand) CloseQuery();
}

void CommandBuffer::BeginSpan(std::string_view label) {
  if (!recording_ || timing_ != Timing::kSpans) return;
  CloseQuery();  // an unclosed span ends where the next begins
  OpenQuery(label);
}

void CommandBuffer::EndSpan() {
  if (recording_ && timing_ == Timing::kSpans) CloseQuery();
}

absl::Status CommandBuffer::Dispatch(std::shared_ptr<const Pipeline> pipeline,
                                     std::span<const Binding> bindings,
                                     std::span<const uint8_t> push_constants,
                                     std::array<uint32_t, 3> groups, std::string_view label) {
  if (!recording_) return absl::FailedPreconditionError("Dispatch outside Begin()/End()");
  if (bindings.size() != pipeline->num_bindings()) {
    return absl::InvalidArgumentError(
        absl::StrCat("dispatch of '", pipeline->name(), "': ", bindings.size(),
                     " bindings, pipeline has ", pipeline->num_bindings()));
  }
  if (push_constants.size() != pipeline->push_constant_bytes()) {
    return absl::InvalidArgumentError(
        absl::StrCat("dispatch of '", pipeline->name(), "': ", push_constants.size(),
                     " bytes of push constants, pipeline takes ", pipeline->push_constant_bytes()));
  }
  const auto& max_groups = device_->info().max_workgroup_count;
  for (int i = 0; i < 3; ++i) {
    if (groups[i] == 0 || groups[i] > max_groups[i]) {
      return absl::InvalidArgumentError(absl::StrCat("dispatch of '", pipeline->name(),
                                                     "': workgroup count ", groups[i],
                                                     " out of range on axis ", i));
    }
  }
  std::vector<VkDescriptorBufferInfo> infos(bindings.size());
  std::vector<VkWriteDescriptorSet> writes(bindings.size());
  for (size_t i = 0; i < bindings.size(); ++i) {
    infos[i] = {bindings[i].range.buffer, bindings[i].range.offset, bindings[i].range.size};
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstBinding = static_cast<uint32_t>(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  TrackHazards(bindings);
  BeginTimed(label.empty() ? std::string_view(pipeline->name()) : label);
  vkCmdBindPipeline(command_buffer_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->handle());
  if (device_->uses_push_descriptors()) {
    device_->push_descriptor_fn()(command_buffer_, VK_PIPELINE_BIND_POINT_COMPUTE,
                                  pipeline->layout(), 0, static_cast<uint32_t>(writes.size()),
                                  writes.data());
  } else {
    ASSIGN_OR_RETURN(VkDescriptorSet set, AllocateDescriptorSet(pipeline->set_layout()));
    for (auto& w : writes) w.dstSet = set;
    vkUpdateDescriptorSets(device_->handle(), static_cast<uint32_t>(writes.size()), writes.data(),
                           0, nullptr);
    vkCmdBindDescriptorSets(command_buffer_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->layout(), 0,
                            1, &set, 0, nullptr);
  }
  if (!push_constants.empty()) {
    vkCmdPushConstants(command_buffer_, pipeline->layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       static_cast<uint32_t>(push_constants.size()), push_constants.data());
  }
  vkCmdDispatch(command_buffer_, groups[0], groups[1], groups[2]);
  EndTimed();
  ++command_count_;
  retained_.push_back(std::move(pipeline));
  return absl::OkStatus();
}

absl::Status CommandBuffer::Copy(const BufferRange& src, const BufferRange& dst,
                                 std::string_view label) {
  if (!recording_) return absl::FailedPreconditionError("Copy outside Begin()/End()");
  if (src.size != dst.size || src.size == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("copy of ", src.size, " bytes into a range of ", dst.size));
  }
  const Binding accesses[] = {{src, Access::kRead}, {dst, Access::kWrite}};
  TrackHazards(accesses);
  BeginTimed(label.empty() ? std::string_view("copy") : label);
  VkBufferCopy region{src.offset, dst.offset, src.size};
  vkCmdCopyBuffer(command_buffer_, src.buffer, dst.buffer, 1, &region);
  EndTimed();
  ++command_count_;
  return absl::OkStatus();
}

absl::Status CommandBuffer::Fill(const BufferRange& dst, uint32_t value, std::string_view label) {
  if (!recording_) return absl::FailedPreconditionError("Fill outside Begin()/End()");
  if (dst.offset % 4 != 0 || dst.size % 4 != 0 || dst.size == 0) {
    return absl::InvalidArgumentError("fill range must be a non-empty multiple of 4 bytes");
  }
  const Binding accesses[] = {{dst, Access::kWrite}};
  TrackHazards(accesses);
  BeginTimed(label.empty() ? std::string_view("fill") : label);
  vkCmdFillBuffer(command_buffer_, dst.buffer, dst.offset, dst.size, value);
  EndTimed();
  ++command_count_;
  return absl::OkStatus();
}

void CommandBuffer::RecordHostBarrier() {
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(command_buffer_,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

absl::Status CommandBuffer::SignalHost(const Event& event) {
  if (!recording_) return absl::FailedPreconditionError("SignalHost outside Begin()/End()");
  if (!event) return absl::InvalidArgumentError("SignalHost of an empty event");
  // End()'s barrier, here part-way: everything so far done and visible to
  // host reads, then the event set after it.
  RecordHostBarrier();
  vkCmdSetEvent(command_buffer_, event.handle(),
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT);
  ++barrier_count_;
  return absl::OkStatus();
}

absl::Status CommandBuffer::End() {
  if (!recording_) return absl::FailedPreconditionError("End without Begin()");
  EndSpan();  // a span left open ends with the recording
  // Make every GPU write visible to host reads after the queue signals.
  RecordHostBarrier();
  VK_RETURN_IF_ERROR(vkEndCommandBuffer(command_buffer_));
  recording_ = false;
  recorded_ = true;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TimestampSpan>> CommandBuffer::ReadTimestamps() const {
  if (!queries_) return absl::FailedPreconditionError("timestamps are not enabled");
  if (last_submission_ == 0) return absl::FailedPreconditionError("never submitted");
  ASSIGN_OR_RETURN(uint64_t completed, device_->queue().CompletedValue());
  if (completed < last_submission_) {
    return absl::FailedPreconditionError("the last submission has not completed");
  }
  std::vector<TimestampSpan> spans;
  if (labels_.empty()) return spans;
  std::vector<uint64_t> ticks(2 * labels_.size());
  VK_RETURN_IF_ERROR(vkGetQueryPoolResults(
      device_->handle(), queries_.get(), 0, static_cast<uint32_t>(ticks.size()),
      ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  const uint32_t bits = device_->info().timestamp_valid_bits;
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const double period = device_->info().timestamp_period;
  spans.reserve(labels_.size());
  for (size_t i = 0; i < labels_.size(); ++i) {
    spans.push_back({labels_[i], static_cast<uint64_t>((ticks[2 * i] & mask) * period),
                     static_cast<uint64_t>((ticks[2 * i + 1] & mask) * period)});
  }
  return spans;
}

}  // namespace vkserve::gpu
