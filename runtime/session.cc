// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <map>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gpu/command_buffer.h"
#include "gpu/device.h"
#include "gpu/queue.h"
#include "runtime/exec/chunked_readback.h"
#include "runtime/exec/session_state.h"
#include "runtime/op/op_util.h"
#include "runtime/passes/fusion.h"
#include "runtime/plan/planner.h"
#include "runtime/run_bindings.h"
#include "runtime/sync_split.h"

namespace vkserve {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t Nanos(Clock::duration d) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

uint64_t Since(Clock::time_point start) { return Nanos(Clock::now() - start); }

// A run's copies between its pieces and mapped memory: one region per
// request of a batch, held inline for the usual batch sizes so that a run
// allocates nothing for them.
using CopyRegions = absl::InlinedVector<gpu::ParallelCopy::Region, 32>;

bool SameRange(const gpu::BufferRange& a, const gpu::BufferRange& b) {
  return a.buffer == b.buffer && a.offset == b.offset && a.size == b.size;
}

// Copies `size` bytes at `from` into `pieces` in order, skipping null
// pieces (bytes nobody wants: a padded batch's extra rows). A sink whose
// pieces do not tile the output broke OutputSink's contract: INTERNAL,
// nothing written past a piece.
absl::Status Scatter(const GpuContext& gpu, const uint8_t* from, uint64_t size,
                     std::span<const std::span<uint8_t>> pieces, const std::string& output) {
  uint64_t total = 0;
  for (std::span<uint8_t> piece : pieces) total += piece.size();
  if (total != size) {
    return absl::InternalError(absl::StrCat("output '", output, "': scatter pieces hold ", total,
                                            " bytes, the output has ", size));
  }
  CopyRegions regions;
  regions.reserve(pieces.size());
  for (std::span<uint8_t> piece : pieces) {
    if (!piece.empty() && piece.data() != nullptr)
      regions.push_back({piece.data(), from, piece.size()});
    from += piece.size();
  }
  CopyRegionsToHost(gpu, regions);
  return absl::OkStatus();
}

}  // namespace

struct Session::Impl {
  SessionOptions options;
  gpu::Buffer dummy;                   // bound where a tensor has no bytes
  std::shared_ptr<StateCache> states;  // per signature, within the model's budget
  size_t recordings = 0;
};

namespace {

// Releases an acquired state when the run ends, however it ends.
class StateLease {
 public:
  StateLease(StateCache& cache, std::string key) : cache_(cache), key_(std::move(key)) {}
  ~StateLease() { cache_.Release(key_); }
  StateLease(const StateLease&) = delete;
  StateLease& operator=(const StateLease&) = delete;

 private:
  StateCache& cache_;
  const std::string key_;
};

// Outputs handed to a DeviceTensor by the last run get a new buffer, and so
// do staging buffers a caller still views (SessionOptions::view_readback_bytes):
// this run must not write under the caller's bytes.
absl::Status ReplaceHandedOutBuffers(const Model& model, const Plan& plan, SessionState& state) {
  gpu::Allocator& allocator = *model.gpu().allocator;
  for (size_t o = 0; o < state.outputs.size(); ++o) {
    const uint64_t size = plan.values[plan.output_values[o]].desc.byte_size();
    if (size > 0 && !state.outputs[o]) {
      ASSIGN_OR_RETURN(state.outputs[o], allocator.Allocate(size, gpu::MemoryUsage::kDeviceLocal,
                                                            gpu::MemoryKind::kIo));
      state.recorded = false;
    }
    if (state.readback[o] == nullptr) continue;
    // Acquire pairs with a view's release: the caller's reads of the bytes
    // come before this run's GPU writes into them.
    if (state.readback_views[o]->load(std::memory_order_acquire) == 0) continue;
    ASSIGN_OR_RETURN(gpu::Buffer fresh, allocator.Allocate(size, gpu::MemoryUsage::kHostReadback,
                                                           gpu::MemoryKind::kStaging));
    state.readback[o] = std::make_shared<gpu::Buffer>(std::move(fresh));
    state.readback_views[o] = std::make_shared<std::atomic<int>>(0);
    state.recorded = false;
  }
  return absl::OkStatus();
}

// Copies the host inputs into their GPU-visible buffers (read by their
// readers, copied piece by piece, or copied whole); returns the range each
// input is bound to, device inputs included.
absl::StatusOr<std::vector<gpu::BufferRange>> UploadInputs(const GpuContext& gpu,
                                                           const RunBindings& in,
                                                           SessionState& state,
                                                           const gpu::Buffer& dummy,
                                                           RunTiming& timing) {
  std::vector<gpu::BufferRange> ranges(in.bound.size());
  for (size_t i = 0; i < in.bound.size(); ++i) {
    if (in.device_inputs[i] != nullptr) {
      ranges[i] = in.device_inputs[i]->range();
      continue;
    }
    const uint64_t size = in.host_bytes[i];
    ranges[i] = state.inputs[i] ? state.inputs[i].range() : dummy.range(0, 4);
    if (size == 0) continue;
    const gpu::Buffer& target = state.input_staging[i] ? state.input_staging[i] : state.inputs[i];
    auto* to = static_cast<uint8_t*>(target.mapped());
    const InputSource& source = in.bound[i]->source;
    if (const auto* reader = std::get_if<HostInputReader>(&source)) {
      RETURN_IF_ERROR((*reader)(std::span<uint8_t>(to, size)));
    } else if (const auto* pieces = std::get_if<HostPieces>(&source)) {
      // A batch's input, one piece per request: copied as one.
      CopyRegions regions;
      regions.reserve(pieces->size());
      for (std::span<const uint8_t> piece : *pieces) {
        if (!piece.empty()) regions.push_back({to, piece.data(), piece.size()});
        to += piece.size();
      }
      CopyRegionsToHost(gpu, regions);
    } else {
      CopyToHost(gpu, to, std::get<HostBytes>(source).data(), size);
    }
    target.FlushHostWrites(0, size);
    timing.bytes_uploaded += size;
  }
  return ranges;
}

// The earliest start and the latest end of spans [begin, end), begin < end.
std::pair<uint64_t, uint64_t> Extent(const std::vector<gpu::TimestampSpan>& spans, size_t begin,
                                     size_t end) {
  uint64_t first = spans[begin].start_ns, last = spans[begin].end_ns;
  for (size_t i = begin; i < end; ++i) {
    first = std::min(first, spans[i].start_ns);
    last = std::max(last, spans[i].end_ns);
  }
  return {first, last};
}

// The run's timestamp spans (empty without timestamps); sets the GPU time
// from the first start to the last end, and `*first_tick_ns` to that start.
absl::StatusOr<std::vector<gpu::TimestampSpan>> ReadGpuSpans(SessionState& state, RunTiming* timing,
                                                             uint64_t* first_tick_ns) {
  std::vector<gpu::TimestampSpan> spans;
  if (!state.command_buffer->timestamps_enabled()) return spans;
  ASSIGN_OR_RETURN(spans, state.command_buffer->ReadTimestamps());
  if (spans.empty()) return spans;
  const auto [first, last] = Extent(spans, 0, spans.size());
  timing->gpu_ns = last - first;
  *first_tick_ns = first;
  // The same without the input and output copies.
  const size_t begin = std::min(state.upload_spans, spans.size());
  const size_t end = spans.size() - std::min(state.readback_spans, spans.size() - begin);
  if (begin < end) {
    const auto [compute_first, compute_last] = Extent(spans, begin, end);
    timing->gpu_compute_ns = compute_last - compute_first;
  }
  return spans;
}

// What output `o`'s sink gave this run: asked before the wait when the
// output is read back in chunks (CopyChunkedOutputs), else after it.
struct SunkOutput {
  bool asked = false;
  OutputPieces pieces;
  bool copied = false;  // already in its one piece, copied during the wait
};

// Output `o` of a finished run: copied to the host (into its sink's pieces
// when it gives them, else into bytes of its own), viewed where it was
// staged (at least `view_bytes` staged bytes and no sink taking it), or its
// buffer handed to a DeviceTensor, which the next run replaces.
absl::StatusOr<RunOutput> CollectOutput(const Model& model, const Plan& plan, const RunBindings& in,
                                        size_t o, const SunkOutput& sunk, uint64_t view_bytes,
                                        SessionState& state, RunTiming* timing) {
  const PlannedValue& v = plan.values[plan.output_values[o]];
  RunOutput out;
  out.name = model.outputs()[o].name;
  out.dtype = v.desc.dtype;
  out.shape = v.desc.shape;
  const uint64_t size = v.desc.byte_size();
  if (size > 0 && in.locations[o] == OutputLocation::kDeviceBorrowed) {
    out.device =
        DeviceTensor::Borrow(out.name, out.dtype, out.shape, &state.outputs[o], model.gpu());
    return out;
  }
  if (!in.host_outputs[o]) {
    gpu::Buffer buffer;
    if (size > 0) {
      buffer = std::move(state.outputs[o]);
      state.recorded = false;  // the next run writes into a new buffer
    } else {
      ASSIGN_OR_RETURN(buffer, model.gpu().allocator->Allocate(4, gpu::MemoryUsage::kDeviceLocal,
                                                               gpu::MemoryKind::kResident));
    }
    out.device = std::make_shared<DeviceTensor>(out.name, out.dtype, out.shape, std::move(buffer),
                                                model.gpu());
    return out;
  }
  out.host.dtype = out.dtype;
  out.host.shape = out.shape;
  if (size == 0) return out;
  if (sunk.copied) {
    out.in_sink = true;
    timing->bytes_read_back += size;
    return out;
  }
  const gpu::Buffer& src = state.readback[o] != nullptr ? *state.readback[o] : state.outputs[o];
  src.InvalidateForHostRead(0, size);
  const auto* bytes = static_cast<const uint8_t*>(src.mapped());
  OutputPieces asked_now;
  if (!sunk.asked && in.sinks[o] != nullptr) asked_now = (*in.sinks[o])(out.shape, size);
  const OutputPieces& pieces = sunk.asked ? sunk.pieces : asked_now;
  if (!pieces.empty()) {
    RETURN_IF_ERROR(Scatter(model.gpu(), bytes, size, pieces, out.name));
    out.in_sink = true;
  } else if (state.readback[o] != nullptr && view_bytes > 0 && size >= view_bytes) {
    // The view owns the buffer, and counts itself in readback_views until released.
    std::shared_ptr<std::atomic<int>> views = state.readback_views[o];
    views->fetch_add(1, std::memory_order_relaxed);
    std::shared_ptr<const void> owner(state.readback[o].get(),
                                      [buffer = state.readback[o], views](const void*) {
                                        views->fetch_sub(1, std::memory_order_release);
                                      });
    out.host.data = TensorBytes::View(std::move(owner), bytes, size);
  } else {
    // One pass over the bytes: resize() then memcpy would zero-fill them
    // first, doubling the host memory traffic of large outputs.
    out.host.data.assign(bytes, bytes + size);
  }
  timing->bytes_read_back += size;
  return out;
}

// Whether output `o` of this run is read back in chunks as the GPU stages
// them: a host output with a sink, staged in chunks.
bool ReadsBackInChunks(const RunBindings& in, const SessionState& state, size_t o) {
  return in.host_outputs[o] && in.sinks[o] != nullptr && state.readback[o] != nullptr &&
         !state.readback_chunks[o].staged.empty();
}

// Asks the sinks of the outputs read back in chunks for their pieces, and
// copies each output whose sink gives one destination into it while the
// GPU stages it. Adds the time spent copying to *copy_ns.
absl::StatusOr<std::vector<SunkOutput>> CopyChunkedOutputs(const Model& model, const Plan& plan,
                                                           const RunBindings& in,
                                                           SessionState& state, uint64_t* copy_ns) {
  std::vector<SunkOutput> sunk(model.outputs().size());
  for (size_t o = 0; o < sunk.size(); ++o) {
    if (!ReadsBackInChunks(in, state, o)) continue;
    const TensorDesc& desc = plan.values[plan.output_values[o]].desc;
    const uint64_t size = desc.byte_size();
    sunk[o].asked = true;
    sunk[o].pieces = (*in.sinks[o])(desc.shape, size);
    const OutputPieces& pieces = sunk[o].pieces;
    if (pieces.size() != 1 || pieces[0].data() == nullptr || pieces[0].size() != size) continue;
    ASSIGN_OR_RETURN(const uint64_t ns,
                     CopyChunksAsStaged(model.gpu(), *state.readback[o], state.readback_chunks[o],
                                        pieces[0].data()));
    *copy_ns += ns;
    sunk[o].copied = true;
  }
  return sunk;
}

// How long a run's wait polls before sleeping (gpu::Queue::Wait): runs
// whose last GPU time was under kSpinBelowNs poll for twice that plus
// kSpinSlackNs, so a small model's wait ends when its work does instead of
// when a woken thread gets a CPU (on the H100, tinynet's 0.09 ms of GPU
// work waited 0.67 ms at 64 clients). Longer runs sleep at once, and so
// does a CPU device (lavapipe), whose own threads need the cores.
constexpr uint64_t kSpinBelowNs = 200'000;
constexpr uint64_t kSpinSlackNs = 50'000;

uint64_t SpinBudget(const gpu::Device& device, const SessionState& state) {
  if (device.info().type == VK_PHYSICAL_DEVICE_TYPE_CPU) return 0;
  if (state.last_gpu_ns == 0 || state.last_gpu_ns > kSpinBelowNs) return 0;
  return 2 * state.last_gpu_ns + kSpinSlackNs;
}

// A profiled run's GPU spans as trace events at `base` ns into the run,
// each named after its node, with its op and shapes.
void AppendGpuTrace(const Plan& plan, const std::vector<gpu::TimestampSpan>& spans, uint64_t base,
                    uint64_t first_tick_ns, std::vector<TraceEvent>* trace) {
  std::map<std::string, const PlannedNode*> by_name;
  for (const PlannedNode& n : plan.nodes) by_name[n.node->name] = &n;
  for (const auto& s : spans) {
    TraceEvent e{
        s.label, "gpu", "", "", base + (s.start_ns - first_tick_ns), s.end_ns - s.start_ns};
    if (auto it = by_name.find(s.label); it != by_name.end()) {
      const PlannedNode& n = *it->second;
      e.op_type = FusedOpName(*n.node);
      std::vector<std::string> ins, outs;
      for (int in : n.inputs) {
        if (in >= 0) ins.push_back(plan.values[in].desc.ToString());
      }
      for (int out : n.outputs) {
        if (out >= 0) outs.push_back(plan.values[out].desc.ToString());
      }
      e.shapes = absl::StrCat(absl::StrJoin(ins, ", "), " -> ", absl::StrJoin(outs, ", "));
    }
    trace->push_back(std::move(e));
  }
}

}  // namespace

Session::Session(std::shared_ptr<const Model> model)
    : model_(std::move(model)), impl_(std::make_unique<Impl>()) {}

Session::~Session() = default;

absl::StatusOr<std::unique_ptr<Session>> Session::Create(std::shared_ptr<const Model> model,
                                                         const SessionOptions& options) {
  if (model == nullptr) return absl::InvalidArgumentError("Session needs a model");
  auto session = std::unique_ptr<Session>(new Session(std::move(model)));
  session->impl_->options = options;
  if (const SyncSplit* split = session->model_->sync_split()) {
    ASSIGN_OR_RETURN(session->split_, SplitSessions::Create(*split, options));
  }
  if (options.timestamps && session->model_->gpu().device->info().timestamp_valid_bits == 0) {
    session->impl_->options.timestamps = false;  // the device cannot time; gpu_ns stays 0
  }
  session->impl_->states = std::make_shared<StateCache>(session->model_->cache_budget());
  ASSIGN_OR_RETURN(session->impl_->dummy,
                   session->model_->gpu().allocator->Allocate(256, gpu::MemoryUsage::kDeviceLocal,
                                                              gpu::MemoryKind::kIo));
  return session;
}

size_t Session::recording_count() const {
  if (split_ != nullptr) return split_->recording_count();
  return impl_->recordings;
}

size_t Session::cached_state_count() const {
  if (split_ != nullptr) return split_->cached_state_count();
  return impl_->states->size();
}

namespace {

// Resolves where a value's bytes are in one run.
class ValueLocator {
 public:
  ValueLocator(const Model& model, const SessionState& state, const gpu::Buffer& dummy)
      : model_(model), state_(state), dummy_(dummy) {}

  absl::StatusOr<gpu::BufferRange> Range(int id) const {
    const Plan& plan = *state_.plan;
    const PlannedValue& v = plan.values[id];
    const PlannedValue& root = v.alias_root >= 0 ? plan.values[v.alias_root] : v;
    const uint64_t size = v.desc.byte_size();
    if (size == 0) return dummy_.range(0, 4);
    switch (root.storage) {
      case PlannedValue::Storage::kInput: {
        gpu::BufferRange r = state_.bound_inputs[root.io_index];
        r.size = size;
        return r;
      }
      case PlannedValue::Storage::kWeight: {
        const gpu::Buffer* w = model_.weight(root.name);
        if (w == nullptr) break;
        return w->range(0, size);
      }
      case PlannedValue::Storage::kConstant:
        return plan.constants.range(root.offset, size);
      case PlannedValue::Storage::kArena:
        return state_.arena.range(root.offset, size);
      case PlannedValue::Storage::kOutput:
        return state_.outputs[root.io_index].range(0, size);
      case PlannedValue::Storage::kHostOnly:
        break;
    }
    return absl::InternalError(absl::StrCat("value '", v.name, "' has no GPU storage"));
  }

 private:
  const Model& model_;
  const SessionState& state_;
  const gpu::Buffer& dummy_;
};

absl::Status AllocateState(const Model& model, const SessionOptions& options, SessionState* state) {
  gpu::Allocator& allocator = *model.gpu().allocator;
  const Plan& plan = *state->plan;
  if (plan.arena_bytes > 0) {
    ASSIGN_OR_RETURN(state->arena,
                     allocator.AllocateUnbound(plan.arena_bytes, gpu::MemoryUsage::kDeviceLocal,
                                               gpu::MemoryKind::kActivations));
  }
  const bool direct_upload = allocator.uploads_are_device_local();
  state->inputs.resize(plan.input_values.size());
  state->input_staging.resize(plan.input_values.size());
  for (size_t i = 0; i < plan.input_values.size(); ++i) {
    const uint64_t size = plan.values[plan.input_values[i]].desc.byte_size();
    if (size == 0) continue;
    ASSIGN_OR_RETURN(
        state->inputs[i],
        allocator.Allocate(
            size, direct_upload ? gpu::MemoryUsage::kHostUpload : gpu::MemoryUsage::kDeviceLocal,
            gpu::MemoryKind::kIo));
    if (state->inputs[i].mapped() == nullptr) {
      ASSIGN_OR_RETURN(
          state->input_staging[i],
          allocator.Allocate(size, gpu::MemoryUsage::kHostUpload, gpu::MemoryKind::kStaging));
    }
  }
  const bool direct_read = allocator.device_local_is_host_readable();
  state->outputs.resize(plan.output_values.size());
  state->readback.resize(plan.output_values.size());
  state->readback_chunks.resize(plan.output_values.size());
  state->readback_views.resize(plan.output_values.size());
  for (size_t o = 0; o < plan.output_values.size(); ++o) {
    const uint64_t size = plan.values[plan.output_values[o]].desc.byte_size();
    if (size == 0) continue;
    ASSIGN_OR_RETURN(state->outputs[o], allocator.Allocate(size, gpu::MemoryUsage::kDeviceLocal,
                                                           gpu::MemoryKind::kIo));
    if (options.stage_outputs || !direct_read || state->outputs[o].mapped() == nullptr) {
      ASSIGN_OR_RETURN(
          gpu::Buffer staging,
          allocator.Allocate(size, gpu::MemoryUsage::kHostReadback, gpu::MemoryKind::kStaging));
      state->readback[o] = std::make_shared<gpu::Buffer>(std::move(staging));
      state->readback_views[o] = std::make_shared<std::atomic<int>>(0);
      ASSIGN_OR_RETURN(
          state->readback_chunks[o],
          PlanReadbackChunks(*model.gpu().device, size, options.overlapped_readback_bytes,
                             options.readback_chunk_bytes));
    }
  }
  gpu::CommandBufferOptions cb_options;
  if (options.timestamps) {
    cb_options.max_timed_commands = static_cast<uint32_t>(
        4 * plan.nodes.size() + 2 * plan.input_values.size() + 2 * plan.output_values.size() + 16);
  }
  ASSIGN_OR_RETURN(state->command_buffer,
                   gpu::CommandBuffer::Create(*model.gpu().device, cb_options));
  return absl::OkStatus();
}

// Whether input i is copied from its staging buffer by the recording, and
// output o into its staging buffer.
bool Uploads(const SessionState& state, size_t i) {
  return state.input_staging[i] && state.bound_inputs[i].buffer == state.inputs[i].handle();
}
bool ReadsBack(const SessionState& state, size_t o) {
  return state.bound_host_outputs[o] && state.readback[o] != nullptr;
}

// Records the staging copies of the bound host inputs, in a span of their
// own when there are any; returns the timed spans.
absl::StatusOr<size_t> RecordUploads(const Model& model, SessionState* state) {
  gpu::CommandBuffer& cb = *state->command_buffer;
  size_t copies = 0;
  for (size_t i = 0; i < state->input_staging.size(); ++i) {
    if (!Uploads(*state, i)) continue;
    if (copies++ == 0) cb.BeginSpan("upload");
    RETURN_IF_ERROR(cb.Copy(state->input_staging[i].range(), state->inputs[i].range(),
                            "upload " + model.inputs()[i].name));
  }
  cb.EndSpan();
  return state->recorded_timing == gpu::Timing::kSpans ? std::min<size_t>(copies, 1) : copies;
}

// Records the readback copies of the bound host outputs, in a span of their
// own when there are any; returns the timed spans.
absl::StatusOr<size_t> RecordReadbacks(const Model& model, SessionState* state) {
  gpu::CommandBuffer& cb = *state->command_buffer;
  size_t spans = 0, outputs = 0;
  for (size_t o = 0; o < state->outputs.size(); ++o) {
    if (!ReadsBack(*state, o)) continue;
    if (outputs++ == 0) cb.BeginSpan("readback");
    ASSIGN_OR_RETURN(const size_t copies, RecordReadback(cb, state->outputs[o], *state->readback[o],
                                                         state->readback_chunks[o],
                                                         "readback " + model.outputs()[o].name));
    spans += copies;
  }
  cb.EndSpan();
  return state->recorded_timing == gpu::Timing::kSpans ? std::min<size_t>(outputs, 1) : spans;
}

// Records the run: uploads, the model's dispatches, readbacks; timed as
// `timing` says (a span for each of the three, or every command).
absl::Status Record(const Model& model, SessionState* state, const gpu::Buffer& dummy,
                    gpu::Timing timing) {
  const Plan& plan = *state->plan;
  gpu::CommandBuffer& cb = *state->command_buffer;
  ValueLocator locate(model, *state, dummy);
  RETURN_IF_ERROR(cb.Begin(timing));
  state->recorded_timing = timing;
  ASSIGN_OR_RETURN(state->upload_spans, RecordUploads(model, state));
  cb.BeginSpan("compute");
  for (const PlannedNode& n : plan.nodes) {
    if (n.kind != PlannedNode::Kind::kKernel) continue;
    bool any_output = false;
    for (int o : n.outputs)
      any_output = any_output || (o >= 0 && plan.values[o].desc.byte_size() > 0);
    if (!any_output) continue;
    RecordContext ctx{cb, {}, {}, {}, {}, n.node->name};
    for (int in : n.inputs) {
      if (in < 0) {
        ctx.inputs.push_back({});
      } else {
        ASSIGN_OR_RETURN(gpu::BufferRange r, locate.Range(in));
        ctx.inputs.push_back(r);
      }
    }
    for (int out : n.outputs) {
      if (out < 0) {
        ctx.outputs.push_back({});
      } else {
        ASSIGN_OR_RETURN(gpu::BufferRange r, locate.Range(out));
        ctx.outputs.push_back(r);
      }
    }
    for (size_t s = 0; s < n.scratch_sizes.size(); ++s) {
      ctx.scratch.push_back(n.scratch_sizes[s] == 0
                                ? dummy.range(0, 4)
                                : state->arena.range(n.scratch_offsets[s], n.scratch_sizes[s]));
    }
    for (uint32_t c : n.constants) {
      const auto& [offset, size] = plan.constant_ranges[c];
      ctx.constants.push_back(size == 0 ? dummy.range(0, 4) : plan.constants.range(offset, size));
    }
    absl::Status status = n.kernel->Record(ctx);
    if (!status.ok()) return AnnotateNodeError(*n.node, status);
  }
  for (const OutputCopy& copy : plan.output_copies) {
    if (!state->outputs[copy.output_index]) continue;
    ASSIGN_OR_RETURN(gpu::BufferRange src, locate.Range(copy.value));
    RETURN_IF_ERROR(cb.Copy(src, state->outputs[copy.output_index].range(),
                            "output " + model.outputs()[copy.output_index].name));
  }
  cb.EndSpan();
  ASSIGN_OR_RETURN(state->readback_spans, RecordReadbacks(model, state));
  return cb.End();
}

}  // namespace

absl::StatusOr<SessionState*> Session::AcquireState(const std::shared_ptr<const Plan>& plan) {
  StateCache& cache = *impl_->states;
  if (SessionState* state = cache.Acquire(plan->signature)) return state;
  // Make room before allocating, so the budget's peak holds too.
  cache.budget().Enforce(SessionState::Estimate(*plan));
  auto state = std::make_unique<SessionState>();
  state->plan = plan;
  RETURN_IF_ERROR(AllocateState(*model_, impl_->options, state.get()));
  return cache.Insert(plan->signature, std::move(state));
}

absl::StatusOr<RunResult> Session::Run(const RunRequest& request) {
  if (split_ != nullptr) {
    // The whole model's binding checks (names, types, shapes), then its parts.
    RETURN_IF_ERROR(RunBindings::Bind(*model_, request).status());
    return split_->Run(request);
  }
  absl::StatusOr<RunResult> result = RunOnce(request, nullptr);
  // The run's state and plan are idle now: within the budget again.
  impl_->states->budget().Enforce();
  return result;
}

absl::StatusOr<RunResult> Session::Run(const RunRequest& request,
                                       const std::function<absl::Status(RunResult&)>& while_held) {
  if (split_ != nullptr) {
    RETURN_IF_ERROR(RunBindings::Bind(*model_, request).status());
    ASSIGN_OR_RETURN(RunResult result, split_->Run(request));
    RETURN_IF_ERROR(while_held(result));
    return result;
  }
  absl::StatusOr<RunResult> result = RunOnce(request, &while_held);
  // The run's state and plan are idle now: within the budget again.
  impl_->states->budget().Enforce();
  return result;
}

absl::StatusOr<RunResult> Session::RunOnce(
    const RunRequest& request, const std::function<absl::Status(RunResult&)>* while_held) {
  const Clock::time_point start = Clock::now();
  const Model& model = *model_;
  RunResult result;
  RunTiming& timing = result.timing;
  std::vector<TraceEvent> host_events;
  auto host_span = [&](const char* name, Clock::time_point t0) {
    if (!request.profile) return;
    host_events.push_back({name, "host", "", "", Nanos(t0 - start), Since(t0)});
  };

  // 1. Match the bindings to the model's inputs and outputs.
  ASSIGN_OR_RETURN(RunBindings in, RunBindings::Bind(model, request));

  // 2. The plan and this session's buffers for it. Inputs that set shapes
  // or bounds select the plan by value, read here on the host.
  ASSIGN_OR_RETURN(const InputValues values, in.ReadValueInputs(model));
  ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan, model.GetPlan(in.shapes, values));
  ASSIGN_OR_RETURN(SessionState * acquired, AcquireState(plan));
  const StateLease lease(*impl_->states, plan->signature);
  SessionState& state = *acquired;
  RETURN_IF_ERROR(ReplaceHandedOutBuffers(model, *plan, state));

  // 3. Host inputs into GPU-visible memory. The upload phase starts with the
  // run, so the binding checks above count as input handling and the phases
  // cover the whole run (the server's metrics rely on that).
  ASSIGN_OR_RETURN(const std::vector<gpu::BufferRange> ranges,
                   UploadInputs(model.gpu(), in, state, impl_->dummy, timing));
  timing.upload_ns = Since(start);
  host_span("upload", start);

  // 4. Replay the recording, or record when shapes or bound buffers changed.
  const gpu::Timing timed = request.profile || impl_->options.time_each_dispatch
                                ? gpu::Timing::kEachCommand
                                : gpu::Timing::kSpans;
  bool same = state.recorded && state.recorded_timing == timed &&
              state.bound_host_outputs == in.host_outputs;
  for (size_t i = 0; same && i < ranges.size(); ++i)
    same = SameRange(ranges[i], state.bound_inputs[i]);
  Clock::time_point t = Clock::now();
  if (!same) {
    state.recorded = false;
    state.bound_inputs = ranges;
    state.bound_host_outputs = in.host_outputs;
    RETURN_IF_ERROR(Record(model, &state, impl_->dummy, timed));
    state.recorded = true;
    ++impl_->recordings;
    timing.record_ns = Since(t);
    host_span("record", t);
  }
  timing.replayed = same;

  // 5. Submit and wait; chunked readbacks are copied out during the wait.
  RETURN_IF_ERROR(ResetReadbackChunks(state.readback_chunks));
  gpu::Queue& queue = model.gpu().device->queue();
  const Clock::time_point submit_start = Clock::now();
  ASSIGN_OR_RETURN(uint64_t value, queue.Submit(*state.command_buffer));
  timing.submit_ns = Since(submit_start);
  host_span("vkQueueSubmit", submit_start);
  t = Clock::now();
  uint64_t overlapped_copy_ns = 0;
  ASSIGN_OR_RETURN(const std::vector<SunkOutput> sunk,
                   CopyChunkedOutputs(model, *plan, in, state, &overlapped_copy_ns));
  RETURN_IF_ERROR(queue.Wait(value, UINT64_MAX, SpinBudget(*model.gpu().device, state)));
  // The copying done during the wait counts as readback, so phases still sum.
  timing.wait_ns = Since(t) - overlapped_copy_ns;
  host_span("wait", t);
  in.device_inputs.clear();  // the GPU is done with them

  // 6. Results to the host: the timestamps, then the outputs (readback phase).
  t = Clock::now();
  uint64_t first_tick_ns = 0;
  ASSIGN_OR_RETURN(const std::vector<gpu::TimestampSpan> spans,
                   ReadGpuSpans(state, &timing, &first_tick_ns));
  state.last_gpu_ns = timing.gpu_ns;
  for (size_t o = 0; o < model.outputs().size(); ++o) {
    ASSIGN_OR_RETURN(RunOutput out,
                     CollectOutput(model, *plan, in, o, sunk[o], impl_->options.view_readback_bytes,
                                   state, &timing));
    result.outputs.push_back(std::move(out));
  }
  timing.readback_ns = Since(t) + overlapped_copy_ns;
  host_span("readback", t);
  timing.total_ns = Since(start);
  if (request.profile) {
    // Built after the clock stops: profiling costs time no run phase should show.
    host_events.push_back({"run", "host", "", plan->signature, 0, timing.total_ns});
    result.trace = std::move(host_events);
    AppendGpuTrace(*plan, spans, Nanos(submit_start - start), first_tick_ns, &result.trace);
  }
  if (while_held != nullptr) RETURN_IF_ERROR((*while_held)(result));  // before the lease ends
  return result;
}

}  // namespace vkserve
