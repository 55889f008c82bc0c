// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/session.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gpu/command_buffer.h"
#include "gpu/queue.h"
#include "runtime/fusion.h"
#include "runtime/op_util.h"
#include "runtime/planner.h"
#include "runtime/session_state.h"

namespace vkserve {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t Since(Clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
}

bool SameRange(const gpu::BufferRange& a, const gpu::BufferRange& b) {
  return a.buffer == b.buffer && a.offset == b.offset && a.size == b.size;
}

// A host view's size: its data, or its parts together.
uint64_t HostViewBytes(const HostTensorView& view) {
  if (view.parts.empty()) return view.data.size();
  uint64_t total = 0;
  for (std::span<const uint8_t> part : view.parts) total += part.size();
  return total;
}

// Copies `size` bytes at `from` into `pieces` in order. A caller whose
// pieces do not tile the output broke RunRequest::host_output_scatter's
// contract: INTERNAL, nothing written past a piece.
absl::Status Scatter(const uint8_t* from, uint64_t size, std::span<const std::span<uint8_t>> pieces,
                     const std::string& output) {
  uint64_t total = 0;
  for (std::span<uint8_t> piece : pieces) total += piece.size();
  if (total != size) {
    return absl::InternalError(absl::StrCat("output '", output, "': scatter pieces hold ", total,
                                            " bytes, the output has ", size));
  }
  for (std::span<uint8_t> piece : pieces) {
    if (!piece.empty()) std::memcpy(piece.data(), from, piece.size());
    from += piece.size();
  }
  return absl::OkStatus();
}

}  // namespace

struct Session::Impl {
  SessionOptions options;
  gpu::Buffer dummy;  // bound where a tensor has no bytes
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

}  // namespace

Session::Session(std::shared_ptr<const Model> model)
    : model_(std::move(model)), impl_(std::make_unique<Impl>()) {}

Session::~Session() = default;

absl::StatusOr<std::unique_ptr<Session>> Session::Create(std::shared_ptr<const Model> model,
                                                         const SessionOptions& options) {
  if (model == nullptr) return absl::InvalidArgumentError("Session needs a model");
  auto session = std::unique_ptr<Session>(new Session(std::move(model)));
  session->impl_->options = options;
  if (options.timestamps && session->model_->gpu().device->info().timestamp_valid_bits == 0) {
    session->impl_->options.timestamps = false;  // the device cannot time; gpu_ns stays 0
  }
  session->impl_->states = std::make_shared<StateCache>(session->model_->cache_budget());
  ASSIGN_OR_RETURN(session->impl_->dummy,
                   session->model_->gpu().allocator->Allocate(256, gpu::MemoryUsage::kDeviceLocal,
                                                              gpu::MemoryKind::kIo));
  return session;
}

size_t Session::recording_count() const { return impl_->recordings; }

size_t Session::cached_state_count() const { return impl_->states->size(); }

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

absl::Status AllocateState(const Model& model, const SessionOptions& options,
                           SessionState* state) {
  gpu::Allocator& allocator = *model.gpu().allocator;
  const Plan& plan = *state->plan;
  if (plan.arena_bytes > 0) {
    ASSIGN_OR_RETURN(state->arena, allocator.AllocateUnbound(plan.arena_bytes,
                                                              gpu::MemoryUsage::kDeviceLocal,
                                                              gpu::MemoryKind::kActivations));
  }
  const bool direct_upload = allocator.uploads_are_device_local();
  state->inputs.resize(plan.input_values.size());
  state->input_staging.resize(plan.input_values.size());
  for (size_t i = 0; i < plan.input_values.size(); ++i) {
    const uint64_t size = plan.values[plan.input_values[i]].desc.byte_size();
    if (size == 0) continue;
    ASSIGN_OR_RETURN(state->inputs[i],
                     allocator.Allocate(size,
                                        direct_upload ? gpu::MemoryUsage::kHostUpload
                                                      : gpu::MemoryUsage::kDeviceLocal,
                                        gpu::MemoryKind::kIo));
    if (state->inputs[i].mapped() == nullptr) {
      ASSIGN_OR_RETURN(state->input_staging[i],
                       allocator.Allocate(size, gpu::MemoryUsage::kHostUpload,
                                          gpu::MemoryKind::kStaging));
    }
  }
  const bool direct_read = allocator.device_local_is_host_readable();
  state->outputs.resize(plan.output_values.size());
  state->readback.resize(plan.output_values.size());
  for (size_t o = 0; o < plan.output_values.size(); ++o) {
    const uint64_t size = plan.values[plan.output_values[o]].desc.byte_size();
    if (size == 0) continue;
    ASSIGN_OR_RETURN(state->outputs[o], allocator.Allocate(size, gpu::MemoryUsage::kDeviceLocal,
                                                           gpu::MemoryKind::kIo));
    if (!direct_read || state->outputs[o].mapped() == nullptr) {
      ASSIGN_OR_RETURN(state->readback[o],
                       allocator.Allocate(size, gpu::MemoryUsage::kHostReadback,
                                          gpu::MemoryKind::kStaging));
    }
  }
  gpu::CommandBufferOptions cb_options;
  if (options.timestamps) {
    cb_options.max_timed_commands =
        static_cast<uint32_t>(4 * plan.nodes.size() + 2 * plan.input_values.size() +
                              2 * plan.output_values.size() + 16);
  }
  ASSIGN_OR_RETURN(state->command_buffer,
                   gpu::CommandBuffer::Create(*model.gpu().device, cb_options));
  return absl::OkStatus();
}

absl::Status Record(const Model& model, SessionState* state, const gpu::Buffer& dummy) {
  const Plan& plan = *state->plan;
  gpu::CommandBuffer& cb = *state->command_buffer;
  ValueLocator locate(model, *state, dummy);
  RETURN_IF_ERROR(cb.Begin());
  for (size_t i = 0; i < state->input_staging.size(); ++i) {
    if (state->input_staging[i] && state->bound_inputs[i].buffer == state->inputs[i].handle()) {
      RETURN_IF_ERROR(cb.Copy(state->input_staging[i].range(), state->inputs[i].range(),
                              "upload " + model.inputs()[i].name));
    }
  }
  for (const PlannedNode& n : plan.nodes) {
    if (n.kind != PlannedNode::Kind::kKernel) continue;
    bool any_output = false;
    for (int o : n.outputs) any_output = any_output || (o >= 0 && plan.values[o].desc.byte_size() > 0);
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
  for (size_t o = 0; o < state->outputs.size(); ++o) {
    if (state->bound_host_outputs[o] && state->readback[o]) {
      RETURN_IF_ERROR(cb.Copy(state->outputs[o].range(), state->readback[o].range(),
                              "readback " + model.outputs()[o].name));
    }
  }
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
  absl::StatusOr<RunResult> result = RunOnce(request);
  // The run's state and plan are idle now: within the budget again.
  impl_->states->budget().Enforce();
  return result;
}

absl::StatusOr<RunResult> Session::RunOnce(const RunRequest& request) {
  const Clock::time_point start = Clock::now();
  const Model& model = *model_;
  RunResult result;
  RunTiming& timing = result.timing;
  std::vector<TraceEvent> host_events;
  auto host_span = [&](const char* name, Clock::time_point t0) {
    if (!request.profile) return;
    const uint64_t begin = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(t0 - start).count());
    host_events.push_back({name, "host", "", "", begin, Since(t0)});
  };

  // 1. Match the bindings to the model's inputs.
  const auto& inputs = model.inputs();
  std::vector<const InputBinding*> bound(inputs.size(), nullptr);
  for (const InputBinding& b : request.inputs) {
    size_t i = 0;
    while (i < inputs.size() && inputs[i].name != b.name) ++i;
    if (i == inputs.size()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown input '", b.name, "'"));
    }
    if (bound[i] != nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("input '", b.name, "' is bound twice"));
    }
    bound[i] = &b;
  }
  for (const auto& reader_entry : request.host_input_readers) {
    const std::string& name = reader_entry.first;
    if (std::none_of(request.inputs.begin(), request.inputs.end(),
                     [&](const InputBinding& b) { return b.name == name && b.device == nullptr; })) {
      return absl::InvalidArgumentError(absl::StrCat("a reader for '", name, "', not a host input"));
    }
  }
  std::vector<std::vector<int64_t>> shapes(inputs.size());
  std::vector<uint64_t> host_bytes(inputs.size(), 0);
  std::vector<const HostInputReader*> readers(inputs.size(), nullptr);
  std::vector<std::shared_ptr<const gpu::Buffer>> device_inputs(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const InputBinding* b = bound[i];
    if (b == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("input '", inputs[i].name, "' is missing"));
    }
    DataType dtype;
    if (b->device != nullptr) {
      ASSIGN_OR_RETURN(device_inputs[i], b->device->buffer());
      dtype = b->device->dtype();
      shapes[i] = b->device->shape();
    } else {
      dtype = b->host.dtype;
      shapes[i] = b->host.shape;
    }
    if (dtype != inputs[i].type.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", inputs[i].name, "' has type ", std::string(DataTypeName(dtype)),
          ", model expects ", std::string(DataTypeName(inputs[i].type.dtype))));
    }
    if (shapes[i].size() != inputs[i].type.shape.size()) {
      return absl::InvalidArgumentError(absl::StrCat("input '", inputs[i].name, "' has rank ",
                                                     shapes[i].size(), ", model expects ",
                                                     inputs[i].type.shape.size()));
    }
    // Checked element count: a hostile shape must not overflow.
    uint64_t elements = 1;
    for (int64_t d : shapes[i]) {
      if (d < 0 || (d > 0 && elements > std::numeric_limits<uint64_t>::max() / 16 / uint64_t(d))) {
        return absl::InvalidArgumentError(absl::StrCat("input '", inputs[i].name,
                                                       "' has an invalid shape ",
                                                       ShapeString(shapes[i])));
      }
      elements *= static_cast<uint64_t>(d);
    }
    if (b->device != nullptr) continue;
    host_bytes[i] = elements * DataTypeSize(dtype);
    if (auto r = request.host_input_readers.find(b->name); r != request.host_input_readers.end()) {
      readers[i] = &r->second;
    } else if (uint64_t given = HostViewBytes(b->host); given != host_bytes[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", inputs[i].name, "' has ", given,
                       " bytes; shape ", ShapeString(shapes[i]), " of ",
                       std::string(DataTypeName(dtype)), " needs ", host_bytes[i]));
    }
  }
  std::vector<bool> host_outputs(model.outputs().size(), true);
  for (const auto& [name, location] : request.output_locations) {
    size_t o = 0;
    while (o < model.outputs().size() && model.outputs()[o].name != name) ++o;
    if (o == model.outputs().size()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown output '", name, "'"));
    }
    host_outputs[o] = location == OutputLocation::kHost;
  }

  // 2. The plan and this session's buffers for it. Inputs that set shapes
  // or bounds select the plan by value, read here on the host.
  InputValues values;
  if (model.has_value_inputs()) {
    values.resize(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!model.is_value_input(i)) continue;
      const InputBinding* b = bound[i];
      if (b->device != nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input '", inputs[i].name, "' sets shapes or bounds of the model; send it in host memory"));
      }
      HostTensor t;
      t.dtype = b->host.dtype;
      t.shape = shapes[i];
      if (readers[i] != nullptr) {  // e.g. shared memory: read once here for planning
        std::vector<uint8_t> bytes(host_bytes[i]);
        RETURN_IF_ERROR((*readers[i])(bytes));
        t.data = TensorBytes(std::move(bytes));
      } else {
        t.data = TensorBytes(std::vector<uint8_t>(b->host.data.begin(), b->host.data.end()));
      }
      values[i] = std::make_shared<const HostTensor>(std::move(t));
    }
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan, model.GetPlan(shapes, values));
  ASSIGN_OR_RETURN(SessionState * acquired, AcquireState(plan));
  const StateLease lease(*impl_->states, plan->signature);
  SessionState& state = *acquired;
  for (size_t o = 0; o < state.outputs.size(); ++o) {
    const uint64_t size = plan->values[plan->output_values[o]].desc.byte_size();
    if (size > 0 && !state.outputs[o]) {  // handed to a DeviceTensor by the last run
      ASSIGN_OR_RETURN(state.outputs[o],
                       model.gpu().allocator->Allocate(size, gpu::MemoryUsage::kDeviceLocal,
                                                       gpu::MemoryKind::kIo));
      state.recorded = false;
    }
  }

  // 3. Host inputs into GPU-visible memory. The upload phase starts with the
  // run, so the binding checks above count as input handling and the phases
  // cover the whole run (the server's metrics rely on that).
  Clock::time_point t = start;
  std::vector<gpu::BufferRange> ranges(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (device_inputs[i] != nullptr) {
      ranges[i] = device_inputs[i]->range();
      continue;
    }
    const uint64_t size = host_bytes[i];
    ranges[i] = state.inputs[i] ? state.inputs[i].range() : impl_->dummy.range(0, 4);
    if (size == 0) continue;
    const gpu::Buffer& target = state.input_staging[i] ? state.input_staging[i] : state.inputs[i];
    if (readers[i] != nullptr) {
      RETURN_IF_ERROR((*readers[i])(std::span<uint8_t>(static_cast<uint8_t*>(target.mapped()), size)));
    } else if (!bound[i]->host.parts.empty()) {
      auto* to = static_cast<uint8_t*>(target.mapped());
      for (std::span<const uint8_t> part : bound[i]->host.parts) {
        if (!part.empty()) std::memcpy(to, part.data(), part.size());
        to += part.size();
      }
    } else {
      std::memcpy(target.mapped(), bound[i]->host.data.data(), size);
    }
    target.FlushHostWrites(0, size);
    timing.bytes_uploaded += size;
  }
  timing.upload_ns = Since(t);
  host_span("upload", t);

  // 4. Replay the recording, or record when shapes or bound buffers changed.
  bool same = state.recorded && state.bound_host_outputs == host_outputs;
  for (size_t i = 0; same && i < ranges.size(); ++i) same = SameRange(ranges[i], state.bound_inputs[i]);
  t = Clock::now();
  if (!same) {
    state.recorded = false;
    state.bound_inputs = ranges;
    state.bound_host_outputs = host_outputs;
    RETURN_IF_ERROR(Record(model, &state, impl_->dummy));
    state.recorded = true;
    ++impl_->recordings;
    timing.record_ns = Since(t);
    host_span("record", t);
  }
  timing.replayed = same;

  // 5. Submit and wait.
  gpu::Queue& queue = model.gpu().device->queue();
  t = Clock::now();
  const Clock::time_point submit_start = t;
  ASSIGN_OR_RETURN(uint64_t value, queue.Submit(*state.command_buffer));
  timing.submit_ns = Since(t);
  host_span("vkQueueSubmit", t);
  t = Clock::now();
  RETURN_IF_ERROR(queue.Wait(value));
  timing.wait_ns = Since(t);
  host_span("wait", t);
  device_inputs.clear();  // the GPU is done with them

  // 6. Results to the host: the timestamps, then the outputs (readback phase).
  t = Clock::now();

  std::vector<gpu::TimestampSpan> spans;
  uint64_t first_tick_ns = 0;
  if (state.command_buffer->timestamps_enabled()) {
    ASSIGN_OR_RETURN(spans, state.command_buffer->ReadTimestamps());
    if (!spans.empty()) {
      uint64_t first = spans.front().start_ns, last = spans.front().end_ns;
      for (const auto& s : spans) {
        first = std::min(first, s.start_ns);
        last = std::max(last, s.end_ns);
      }
      timing.gpu_ns = last - first;
      first_tick_ns = first;
    }
  }

  // Outputs: host copies, or the buffer itself handed to a DeviceTensor.
  for (size_t o = 0; o < model.outputs().size(); ++o) {
    const PlannedValue& v = plan->values[plan->output_values[o]];
    RunOutput out;
    out.name = model.outputs()[o].name;
    out.dtype = v.desc.dtype;
    out.shape = v.desc.shape;
    const uint64_t size = v.desc.byte_size();
    if (host_outputs[o]) {
      out.host.dtype = out.dtype;
      out.host.shape = out.shape;
      if (size > 0) {
        const gpu::Buffer& src = state.readback[o] ? state.readback[o] : state.outputs[o];
        src.InvalidateForHostRead(0, size);
        const auto* bytes = static_cast<const uint8_t*>(src.mapped());
        std::vector<std::span<uint8_t>> pieces;
        if (request.host_output_scatter) pieces = request.host_output_scatter(o, out.shape, size);
        uint8_t* sink = pieces.empty() && request.host_output_sink
                            ? request.host_output_sink(o, size)
                            : nullptr;
        if (!pieces.empty()) {
          RETURN_IF_ERROR(Scatter(bytes, size, pieces, out.name));
          out.in_sink = true;
        } else if (sink != nullptr) {
          std::memcpy(sink, bytes, size);
          out.in_sink = true;
        } else {
          // One pass over the bytes: resize() then memcpy would zero-fill
          // them first, doubling the host memory traffic of large outputs.
          out.host.data.assign(bytes, bytes + size);
        }
        timing.bytes_read_back += size;
      }
    } else {
      gpu::Buffer buffer;
      if (size > 0) {
        buffer = std::move(state.outputs[o]);
        state.recorded = false;  // the next run writes into a new buffer
      } else {
        ASSIGN_OR_RETURN(buffer, model.gpu().allocator->Allocate(4, gpu::MemoryUsage::kDeviceLocal,
                                                                 gpu::MemoryKind::kResident));
      }
      out.device = std::make_shared<DeviceTensor>(out.name, out.dtype, out.shape,
                                                  std::move(buffer), model.gpu());
    }
    result.outputs.push_back(std::move(out));
  }
  timing.readback_ns = Since(t);
  host_span("readback", t);
  timing.total_ns = Since(start);
  if (request.profile) {
    // Built after the clock stops: profiling costs time no run phase should show.
    host_events.push_back({"run", "host", "", plan->signature, 0, timing.total_ns});
    result.trace = std::move(host_events);
    std::map<std::string, const PlannedNode*> by_name;
    for (const PlannedNode& n : plan->nodes) by_name[n.node->name] = &n;
    const uint64_t base = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(submit_start - start).count());
    for (const auto& s : spans) {
      TraceEvent e{s.label, "gpu", "", "", base + (s.start_ns - first_tick_ns), s.end_ns - s.start_ns};
      if (auto it = by_name.find(s.label); it != by_name.end()) {
        const PlannedNode& n = *it->second;
        e.op_type = FusedOpName(*n.node);
        std::vector<std::string> ins, outs;
        for (int in : n.inputs) {
          if (in >= 0) ins.push_back(plan->values[in].desc.ToString());
        }
        for (int out : n.outputs) {
          if (out >= 0) outs.push_back(plan->values[out].desc.ToString());
        }
        e.shapes = absl::StrCat(absl::StrJoin(ins, ", "), " -> ", absl::StrJoin(outs, ", "));
      }
      result.trace.push_back(std::move(e));
    }
  }
  return result;
}

}  // namespace vkserve
