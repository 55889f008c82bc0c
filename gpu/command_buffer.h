// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// CommandBuffer: a recorded sequence of dispatches and copies that can be
// submitted any number of times without re-recording (vkserve's graph
// capture). It owns its VkCommandPool, the descriptor pools of the pooled-set
// path, and a timestamp query pool.
//
// Barriers are inserted automatically and only where needed: each command
// declares how it accesses its buffer ranges, and a memory barrier is recorded
// only before a command that reads what an earlier command wrote (or writes
// what an earlier one read or wrote) since the last barrier.
//
// With timestamps enabled, a recording times either every command (a
// profile: each command bracketed by timestamp queries) or only the spans
// its recorder opens around groups of commands (a run's phases); the queries
// are reset inside the command buffer, so each replay measures afresh, and
// ReadTimestamps() converts them to nanoseconds with timestampPeriod. A
// timestamp waits for all earlier commands (ALL_COMMANDS) but holds back no
// later one, so timing every command also records a barrier before each
// command that has unsynchronized predecessors: independent neighbours run
// one at a time and each time is its own. That and the queries' own cost
// are right for a profile, not for serving.
//
// Not thread-safe: one thread records; Queue::Submit may be called from any
// thread. Destroying a CommandBuffer waits for its last submission.
#ifndef VKSERVE_GPU_COMMAND_BUFFER_H_
#define VKSERVE_GPU_COMMAND_BUFFER_H_

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "gpu/buffer.h"
#include "gpu/device.h"
#include "gpu/event.h"
#include "gpu/handle.h"
#include "gpu/pipeline.h"

namespace vkserve::gpu {

enum class Access : uint8_t { kRead, kWrite, kReadWrite };

// One storage-buffer binding of a dispatch, in binding order.
struct Binding {
  BufferRange range;
  Access access = Access::kRead;
};

struct CommandBufferOptions {
  // Spans (commands, or BeginSpan/EndSpan groups) that get timestamp
  // queries; those beyond it run untimed. 0 disables timestamps.
  uint32_t max_timed_commands = 0;
};

// What a recording times (with timestamps enabled).
enum class Timing : uint8_t {
  kEachCommand,  // every dispatch, copy and fill; BeginSpan/EndSpan do nothing
  kSpans,        // only BeginSpan/EndSpan groups; commands inside are not timed alone
};

// GPU time of one command, in nanoseconds on the device clock.
struct TimestampSpan {
  std::string label;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

class CommandBuffer {
 public:
  // REQUIRES: `device` outlives the command buffer. FAILED_PRECONDITION if
  // timestamps are asked for and the queue has none.
  static absl::StatusOr<std::unique_ptr<CommandBuffer>> Create(
      const Device& device, const CommandBufferOptions& options = {});
  CommandBuffer(const CommandBuffer&) = delete;
  CommandBuffer& operator=(const CommandBuffer&) = delete;
  ~CommandBuffer();

  // Starts a new recording, dropping the previous one, that times what
  // `timing` says. FAILED_PRECONDITION if the previous recording is still
  // executing.
  absl::Status Begin(Timing timing = Timing::kEachCommand);

  // Under Timing::kSpans, the commands recorded between the two calls make
  // one timed span named `label` (its start waits for earlier commands, its
  // end for the span's own). Spans do not nest. Both do nothing under
  // kEachCommand.
  void BeginSpan(std::string_view label);
  void EndSpan();

  // Records a dispatch of `groups` workgroups. `bindings` must match the
  // pipeline's binding count; `push_constants` its push-constant size. The
  // pipeline is kept alive as long as this recording.
  absl::Status Dispatch(std::shared_ptr<const Pipeline> pipeline, std::span<const Binding> bindings,
                        std::span<const uint8_t> push_constants, std::array<uint32_t, 3> groups,
                        std::string_view label = {});

  // Records a copy of src.size bytes. REQUIRES: src.size == dst.size.
  absl::Status Copy(const BufferRange& src, const BufferRange& dst, std::string_view label = {});

  // Records filling `dst` with a repeated 32-bit value (offset and size
  // multiples of 4).
  absl::Status Fill(const BufferRange& dst, uint32_t value, std::string_view label = {});

  // Records setting `event` once every command recorded so far has finished,
  // with their writes visible to the host: the host may read what they wrote
  // as soon as event.IsSet(), before the submission completes. The event is
  // reset by the host before each submission (Event::Reset). REQUIRES: the
  // event outlives the recording's submissions.
  absl::Status SignalHost(const Event& event);

  // Finishes the recording, adding the barrier that makes GPU writes visible
  // to the host after completion.
  absl::Status End();

  // Keeps `resource` alive as long as this recording (until the next Begin()
  // or destruction, and in any case until its submissions complete).
  void Retain(std::shared_ptr<const void> resource) { retained_.push_back(std::move(resource)); }

  // The GPU spans of the last completed submission, in recording order.
  // REQUIRES: timestamps enabled and the last submission has completed.
  absl::StatusOr<std::vector<TimestampSpan>> ReadTimestamps() const;

  VkCommandBuffer handle() const { return command_buffer_; }
  bool recorded() const { return recorded_; }
  bool timestamps_enabled() const { return options_.max_timed_commands > 0; }
  uint32_t command_count() const { return command_count_; }
  uint32_t barrier_count() const { return barrier_count_; }
  const Device& device() const { return *device_; }

 private:
  friend class Queue;
  struct Range {
    VkBuffer buffer;
    uint64_t begin, end;
  };
  CommandBuffer(const Device& device, const CommandBufferOptions& options)
      : device_(&device), options_(options) {}
  // Records a barrier first if a command with these accesses depends on
  // earlier unsynchronized ones (in a profile: on any).
  void TrackHazards(std::span<const Binding> accesses);
  // Records a barrier after which every compute and transfer write so far is
  // visible to host reads.
  void RecordHostBarrier();
  absl::StatusOr<VkDescriptorSet> AllocateDescriptorSet(VkDescriptorSetLayout layout);
  // Per-command timing (Timing::kEachCommand).
  void BeginTimed(std::string_view label);
  void EndTimed();
  // Opens and closes a span's queries, if the query budget has room.
  void OpenQuery(std::string_view label);
  void CloseQuery();

  const Device* device_;
  CommandBufferOptions options_;
  CommandPoolHandle pool_;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
  QueryPoolHandle queries_;
  std::vector<DescriptorPoolHandle> descriptor_pools_;  // pooled-set path only
  uint32_t descriptor_pool_next_ = 0;                   // pools in use this recording
  uint32_t sets_in_current_pool_ = 0;
  std::vector<std::shared_ptr<const void>> retained_;
  std::vector<Range> pending_reads_;
  std::vector<Range> pending_writes_;
  std::vector<std::string> labels_;  // one per timed command or span
  Timing timing_ = Timing::kEachCommand;
  bool timing_open_ = false;
  bool recording_ = false;
  bool recorded_ = false;
  uint32_t command_count_ = 0;
  uint32_t barrier_count_ = 0;
  uint64_t last_submission_ = 0;  // queue timeline value, 0 = never submitted
};

}  // namespace vkserve::gpu

#endif  // VKSERVE_GPU_COMMAND_BUFFER_H_
