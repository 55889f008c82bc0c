// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ModelStreamInfer and the Infer() that it and InferQueues' ModelInfer
// calls share (see grpc_service.h).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <filesystem>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/happens_before.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "gpu/vk_status.h"
#include "server/grpc/grpc_service.h"
#include "server/grpc/infer_request.h"
#include "server/observability/logging.h"
#include "server/observability/metrics.h"
#include "server/observability/request_tracer.h"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

using inference::ModelInferRequest;
using inference::ModelInferResponse;
using inference::ModelStreamInferResponse;

// One ModelStreamInfer stream: reads requests as they come, runs them
// concurrently, writes each answer (one write at a time) and finishes once
// the client is done sending and every answer is written.
class StreamReactor final
    : public grpc::ServerBidiReactor<ModelInferRequest, ModelStreamInferResponse> {
 public:
  StreamReactor(InferenceService* service, grpc::CallbackServerContext* context)
      : service_(service),
        output_buffers_(service->output_buffers()),
        deadline_(ClientDeadline(*context)) {
    VKSERVE_HAPPENS_BEFORE(this);
    StartRead(&incoming_);
  }

  void OnReadDone(bool ok) override {
    VKSERVE_HAPPENS_AFTER(this);
    if (!ok) {
      MutexLock lock(&mutex_);
      reads_done_ = true;
      MaybeFinishLocked();
      return;
    }
    auto request = std::make_shared<ModelInferRequest>(std::move(incoming_));
    incoming_.Clear();
    auto response = std::make_shared<ModelInferResponse>();
    {
      MutexLock lock(&mutex_);
      ++in_flight_;
    }
    service_->Infer(
        request.get(), response.get(), deadline_, [this] { return cancelled_.load(); },
        [this, request, response](absl::Status status) {
          ModelStreamInferResponse out;
          if (status.ok()) {
            *out.mutable_infer_response() = std::move(*response);
          } else {
            out.set_error_message(BoundedMessage(status.message()));
            out.mutable_infer_response()->set_id(request->id());
            out.mutable_infer_response()->set_model_name(request->model_name());
          }
          MutexLock lock(&mutex_);
          --in_flight_;
          pending_.push_back(std::move(out));
          if (!writing_) {
            writing_ = true;
            VKSERVE_HAPPENS_BEFORE(this);
            StartWrite(&pending_.front());
          }
        });
    VKSERVE_HAPPENS_BEFORE(this);
    StartRead(&incoming_);
  }

  void OnWriteDone(bool ok) override {
    VKSERVE_HAPPENS_AFTER(this);
    MutexLock lock(&mutex_);
    if (output_buffers_ != nullptr) {
      RecycleOutputBuffers(pending_.front().mutable_infer_response(), output_buffers_.get());
    }
    pending_.pop_front();
    if (!ok) {
      broken_ = true;
      pending_.clear();
    }
    if (!pending_.empty()) {
      VKSERVE_HAPPENS_BEFORE(this);
      StartWrite(&pending_.front());
      return;
    }
    writing_ = false;
    MaybeFinishLocked();
  }

  void OnCancel() override {
    VKSERVE_HAPPENS_AFTER(this);
    cancelled_.store(true);
    VKSERVE_HAPPENS_BEFORE(this);
  }
  void OnDone() override {
    VKSERVE_HAPPENS_AFTER(this);
    delete this;
  }

 private:
  void MaybeFinishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    if (finished_ || !reads_done_ || in_flight_ > 0 || writing_) return;
    finished_ = true;
    VKSERVE_HAPPENS_BEFORE(this);
    Finish(grpc::Status::OK);
  }

  InferenceService* const service_;
  const std::shared_ptr<OutputBufferPool> output_buffers_;  // may be null
  const absl::Time deadline_;
  std::atomic<bool> cancelled_{false};
  ModelInferRequest incoming_;  // only touched by the read chain
  Mutex mutex_;
  std::deque<ModelStreamInferResponse> pending_ ABSL_GUARDED_BY(mutex_);
  int in_flight_ ABSL_GUARDED_BY(mutex_) = 0;
  bool writing_ ABSL_GUARDED_BY(mutex_) = false;
  bool reads_done_ ABSL_GUARDED_BY(mutex_) = false;
  bool broken_ ABSL_GUARDED_BY(mutex_) = false;
  bool finished_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace

// At most this many ModelInfer calls run on their InferQueues thread at
// once: a thread blocked in a run neither reads nor answers the other calls
// of its queue, so at least half of the threads stay free (one, when there
// is one). Calls beyond the cap take the ordinary path (the runner threads),
// so the cap costs latency, never correctness.
int InferenceService::MaxInlineRuns() const { return std::max(1, ctx_->infer_threads / 2); }

bool InferenceService::TakeInlineSlot() {
  int running = inline_runs_.load(std::memory_order_relaxed);
  while (running < MaxInlineRuns()) {
    if (inline_runs_.compare_exchange_weak(running, running + 1, std::memory_order_acq_rel))
      return true;
  }
  return false;
}

absl::Time ClientDeadline(const grpc::ServerContextBase& context) {
  const auto d = context.deadline();
  if (d >= std::chrono::system_clock::time_point::max() - std::chrono::hours(24 * 365)) {
    return absl::InfiniteFuture();
  }
  return absl::FromChrono(d);
}

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // Bounded: the message travels in a trailer the client limits in size.
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      BoundedMessage(status.message()));
}

namespace {

// One ModelInfer request from PrepareInfer to its answer: what the
// scheduler's callback needs to answer it.
struct InferCall {
  const ModelInferRequest* request;
  ModelInferResponse* response;
  std::shared_ptr<ServedModel> served;
  std::shared_ptr<PreparedInfer> prepared;
  absl::Time start;        // the request reached Infer
  absl::Time prepared_at;  // PrepareInfer returned
  std::string log_id;
  std::function<void(absl::Status)> done;
};

// What every request must pass before its model is looked up.
absl::Status CheckAdmission(const ServiceContext& ctx, const ModelInferRequest& request) {
  if (!ctx.accepting.load()) return absl::UnavailableError("the server is shutting down");
  // The transport admits up to twice max_message_bytes so that an oversized
  // request gets an INVALID_ARGUMENT naming the limit instead of a bare
  // transport error; beyond that gRPC itself refuses it.
  if (const size_t bytes = request.ByteSizeLong();
      bytes > static_cast<size_t>(ctx.settings.max_message_bytes)) {
    return absl::InvalidArgumentError(absl::StrCat("the request has ", bytes,
                                                   " bytes, more than max_message_bytes (",
                                                   ctx.settings.max_message_bytes, ")"));
  }
  return absl::OkStatus();
}

// Whether the request asks to be traced; INVALID_ARGUMENT when it may not.
absl::StatusOr<bool> TraceAsked(const ServiceContext& ctx, const ModelInferRequest& request) {
  ASSIGN_OR_RETURN(const bool requested, TraceRequested(request));
  if (requested && !ctx.settings.trace_allow_request) {
    return absl::InvalidArgumentError(absl::StrCat("request: parameter '", kTraceParam,
                                                   "' is refused: the server config sets "
                                                   "trace.allow_request to false"));
  }
  return requested;
}

// Writes a traced run's spans and names the file in the response.
void WriteTrace(const ServiceContext& ctx, const InferCall& call, const RequestSpans& spans,
                const RunResult& result) {
  auto path =
      ctx.tracer->Write(call.served->name(), call.served->version(),
                        RequestTracer::Assemble(spans, result.timing.total_ns, result.trace));
  if (!path.ok()) {
    // The inference succeeded; losing its trace is not the client's error.
    spdlog::warn("trace not written: {}", path.status().ToString());
    return;
  }
  // The client learns the file's name in the trace directory; where that
  // directory is stays in the server's log and config.
  (*call.response->mutable_parameters())[kTracePathParam].set_string_param(
      std::filesystem::path(*path).filename().string());
  spdlog::debug("trace written to {}", *path);
}

void LogOutcome(const ServedModel& served, const absl::Status& status, uint64_t request_ns,
                uint64_t queue_ns, const RunTiming& t) {
  if (status.ok()) {
    spdlog::debug(
        "model '{}' v{}: OK in {} us (queue {}, upload {}, record {}, submit {}, gpu {}, "
        "wait {}, readback {} us)",
        served.name(), served.version(), request_ns / 1000, queue_ns / 1000, t.upload_ns / 1000,
        t.record_ns / 1000, t.submit_ns / 1000, t.gpu_ns / 1000, t.wait_ns / 1000,
        t.readback_ns / 1000);
  } else if (OutcomeOf(status) == RequestOutcome::kInternal) {
    spdlog::error("{} (after {} us)", status.ToString(), request_ns / 1000);
  } else {
    spdlog::debug("{} (after {} us)", status.ToString(), request_ns / 1000);
  }
}

// The scheduler's answer to `call`: the response filled, the trace written,
// the statistics recorded, the outcome logged, then `call.done`.
void Complete(const ServiceContext& ctx, InferCall& call, absl::StatusOr<RunResult> result,
              const ExecutionInfo& info) {
  ServedModel& served = *call.served;
  if (result.ok() && info.reports_execution) {
    served.RecordExecution(info.execution_batch_size, result->timing, info.forming_ns,
                           info.padding_rows);
  }
  ScopedRequestId scoped_id(call.log_id);
  absl::Status status = result.status();
  const absl::Time respond_start = absl::Now();
  if (status.ok()) {
    status = FillInferResponse(*call.request, *call.prepared, *result, served, *ctx.resident,
                               call.response);
  }
  const absl::Time end = absl::Now();
  const uint64_t request_ns = static_cast<uint64_t>(absl::ToInt64Nanoseconds(end - call.start));
  if (status.ok() && !result->trace.empty()) {
    RequestSpans spans;
    spans.prepare_ns =
        static_cast<uint64_t>(absl::ToInt64Nanoseconds(call.prepared_at - call.start));
    spans.queue_ns = info.queue_ns;
    spans.respond_ns = static_cast<uint64_t>(absl::ToInt64Nanoseconds(end - respond_start));
    spans.request_ns = request_ns;
    WriteTrace(ctx, call, spans, *result);
  }
  if (status.ok()) {
    served.RecordSuccess(request_ns, info.queue_ns, result->timing, call.prepared->batch_size,
                         info);
  } else {
    served.RecordFailure(request_ns, OutcomeOf(status));
    if (gpu::IsDeviceLost(status)) ctx.models->OnDeviceLost(served, info.gpu);
    status = absl::Status(status.code(),
                          absl::StrCat("model '", served.name(), "': ", status.message()));
  }
  LogOutcome(served, status, request_ns, info.queue_ns, status.ok() ? result->timing : RunTiming());
  call.done(status);
}

}  // namespace

void InferenceService::Infer(const ModelInferRequest* request, ModelInferResponse* response,
                             absl::Time deadline, std::function<bool()> cancelled,
                             std::function<void(absl::Status)> done, bool may_run_inline) {
  InferCall call{request,     response,     nullptr, nullptr,
                 absl::Now(), absl::Time(), "",      std::move(done)};
  // Log lines about this request name it: the client's id (bounded and
  // escaped: it lands in every line), else a sequence.
  call.log_id = request->id().empty() ? absl::StrCat("#", ctx_->request_sequence.fetch_add(1) + 1)
                                      : Escaped(request->id());
  ScopedRequestId scoped_id(call.log_id);
  if (absl::Status admitted = CheckAdmission(*ctx_, *request); !admitted.ok()) {
    return call.done(std::move(admitted));
  }
  if (IsHandleRequest(*request)) {
    absl::Status s = RunHandleRequest(*request, *ctx_->resident, response);
    spdlog::debug("handle request: {}", s.ToString());
    return call.done(std::move(s));
  }
  auto model = ctx_->models->Get(request->model_name(), request->model_version());
  if (!model.ok()) {
    spdlog::debug("{}", model.status().ToString());
    return call.done(model.status());
  }
  call.served = *std::move(model);
  auto fail = [&](absl::Status status) {
    call.served->RecordFailure(
        static_cast<uint64_t>(absl::ToInt64Nanoseconds(absl::Now() - call.start)),
        OutcomeOf(status));
    spdlog::debug("model '{}' v{}: {}", call.served->name(), call.served->version(),
                  status.ToString());
    call.done(std::move(status));
  };
  absl::StatusOr<bool> trace_asked = TraceAsked(*ctx_, *request);
  if (!trace_asked.ok()) return fail(trace_asked.status());
  auto prepared = PrepareInfer(*request, *call.served, *ctx_->resident, *ctx_->shared_memory,
                               ctx_->output_buffers);
  if (!prepared.ok()) return fail(prepared.status());
  call.prepared = *std::move(prepared);
  SchedulerRequest scheduled;
  scheduled.run = std::move(call.prepared->run);
  scheduled.run.profile = ctx_->tracer->ShouldTrace(*trace_asked);
  scheduled.batch_size = call.served->settings().max_batch_size > 0 ? call.prepared->batch_size : 0;
  scheduled.deadline = deadline;
  scheduled.timeout = call.prepared->timeout;
  scheduled.priority = call.prepared->priority;
  scheduled.cancelled = std::move(cancelled);
  // An inline run blocks this gRPC thread for the run (scheduler.h: only
  // when it would start at once and the model's runs are short); the slot
  // bounds how many gRPC threads do so at once.
  const bool inline_slot = may_run_inline && TakeInlineSlot();
  scheduled.may_run_inline = inline_slot;
  call.prepared_at = absl::Now();
  // Held here too: an inline answer may drop the callback's reference
  // while Submit still runs on the model's scheduler.
  const std::shared_ptr<ServedModel> served = call.served;
  served->scheduler().Submit(std::move(scheduled), [ctx = ctx_, call = std::move(call)](
                                                       absl::StatusOr<RunResult> result,
                                                       const ExecutionInfo& info) mutable {
    Complete(*ctx, call, std::move(result), info);
  });
  if (inline_slot) inline_runs_.fetch_sub(1, std::memory_order_acq_rel);
}

grpc::ServerBidiReactor<ModelInferRequest, ModelStreamInferResponse>*
InferenceService::ModelStreamInfer(grpc::CallbackServerContext* c) {
  return new StreamReactor(this, c);
}

}  // namespace vkserve
