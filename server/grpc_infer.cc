// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// ModelInfer and ModelStreamInfer (see grpc_service.h).
#include <atomic>
#include <chrono>
#include <deque>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/grpc_service.h"
#include "server/infer_request.h"
#include "spdlog/spdlog.h"

namespace vkserve {
namespace {

using inference::ModelInferRequest;
using inference::ModelInferResponse;
using inference::ModelStreamInferResponse;

absl::Time ClientDeadline(const grpc::CallbackServerContext* c) {
  const auto d = c->deadline();
  if (d >= std::chrono::system_clock::time_point::max() - std::chrono::hours(24 * 365)) {
    return absl::InfiniteFuture();
  }
  return absl::FromChrono(d);
}

// A unary ModelInfer call; deletes itself when gRPC is done with it.
class InferReactor final : public grpc::ServerUnaryReactor {
 public:
  void OnCancel() override { cancelled_.store(true); }
  void OnDone() override { delete this; }
  bool cancelled() const { return cancelled_.load(); }

 private:
  std::atomic<bool> cancelled_{false};
};

// One ModelStreamInfer stream: reads requests as they come, runs them
// concurrently, writes each answer (one write at a time) and finishes once
// the client is done sending and every answer is written.
class StreamReactor final
    : public grpc::ServerBidiReactor<ModelInferRequest, ModelStreamInferResponse> {
 public:
  StreamReactor(InferenceService* service, grpc::CallbackServerContext* context)
      : service_(service), deadline_(ClientDeadline(context)) {
    StartRead(&incoming_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      absl::MutexLock lock(&mutex_);
      reads_done_ = true;
      MaybeFinishLocked();
      return;
    }
    auto request = std::make_shared<ModelInferRequest>(std::move(incoming_));
    incoming_.Clear();
    auto response = std::make_shared<ModelInferResponse>();
    {
      absl::MutexLock lock(&mutex_);
      ++in_flight_;
    }
    service_->Infer(request.get(), response.get(), deadline_, [this] { return cancelled_.load(); },
                    [this, request, response](absl::Status status) {
                      ModelStreamInferResponse out;
                      if (status.ok()) {
                        *out.mutable_infer_response() = std::move(*response);
                      } else {
                        out.set_error_message(std::string(status.message()));
                        out.mutable_infer_response()->set_id(request->id());
                        out.mutable_infer_response()->set_model_name(request->model_name());
                      }
                      absl::MutexLock lock(&mutex_);
                      --in_flight_;
                      pending_.push_back(std::move(out));
                      if (!writing_) {
                        writing_ = true;
                        StartWrite(&pending_.front());
                      }
                    });
    StartRead(&incoming_);
  }

  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mutex_);
    pending_.pop_front();
    if (!ok) {
      broken_ = true;
      pending_.clear();
    }
    if (!pending_.empty()) {
      StartWrite(&pending_.front());
      return;
    }
    writing_ = false;
    MaybeFinishLocked();
  }

  void OnCancel() override { cancelled_.store(true); }
  void OnDone() override { delete this; }

 private:
  void MaybeFinishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    if (finished_ || !reads_done_ || in_flight_ > 0 || writing_) return;
    finished_ = true;
    Finish(grpc::Status::OK);
  }

  InferenceService* const service_;
  const absl::Time deadline_;
  std::atomic<bool> cancelled_{false};
  ModelInferRequest incoming_;  // only touched by the read chain
  absl::Mutex mutex_;
  std::deque<ModelStreamInferResponse> pending_ ABSL_GUARDED_BY(mutex_);
  int in_flight_ ABSL_GUARDED_BY(mutex_) = 0;
  bool writing_ ABSL_GUARDED_BY(mutex_) = false;
  bool reads_done_ ABSL_GUARDED_BY(mutex_) = false;
  bool broken_ ABSL_GUARDED_BY(mutex_) = false;
  bool finished_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

void InferenceService::Infer(const ModelInferRequest* request, ModelInferResponse* response,
                             absl::Time deadline, std::function<bool()> cancelled,
                             std::function<void(absl::Status)> done) {
  const absl::Time start = absl::Now();
  if (!ctx_->accepting.load()) {
    done(absl::UnavailableError("the server is shutting down"));
    return;
  }
  // The transport admits up to twice max_message_bytes so that an oversized
  // request gets an INVALID_ARGUMENT naming the limit instead of a bare
  // transport error; beyond that gRPC itself refuses it.
  if (const size_t bytes = request->ByteSizeLong();
      bytes > static_cast<size_t>(ctx_->settings.max_message_bytes)) {
    done(absl::InvalidArgumentError(absl::StrCat("the request has ", bytes,
                                                 " bytes, more than max_message_bytes (",
                                                 ctx_->settings.max_message_bytes, ")")));
    return;
  }
  if (IsHandleRequest(*request)) {
    absl::Status s = RunHandleRequest(*request, *ctx_->resident, response);
    spdlog::debug("[{}] handle request: {}", request->id(), s.ToString());
    done(s);
    return;
  }
  auto model = ctx_->models->Get(request->model_name(), request->model_version());
  if (!model.ok()) {
    done(model.status());
    return;
  }
  std::shared_ptr<ServedModel> served = *std::move(model);
  auto prepared_or = PrepareInfer(*request, *served, *ctx_->resident, *ctx_->shared_memory);
  if (!prepared_or.ok()) {
    served->RecordFailure(static_cast<uint64_t>(absl::ToInt64Nanoseconds(absl::Now() - start)));
    spdlog::debug("[{}] model '{}': {}", request->id(), served->name(), prepared_or.status().ToString());
    done(prepared_or.status());
    return;
  }
  std::shared_ptr<PreparedInfer> prepared = *std::move(prepared_or);
  // The model's queue timeout, replaced by the request's "timeout" when the
  // model has none or allows overriding it (Triton's rule).
  const ModelSettings& model_settings = served->settings();
  std::optional<absl::Duration> queue_timeout;
  if (model_settings.default_timeout > absl::ZeroDuration()) queue_timeout = model_settings.default_timeout;
  if (prepared->timeout && (!queue_timeout || model_settings.allow_timeout_override)) {
    queue_timeout = prepared->timeout;
  }
  if (queue_timeout) deadline = std::min(deadline, start + *queue_timeout);
  RunRequest run = std::move(prepared->run);
  served->pool().Submit(
      std::move(run), deadline, std::move(cancelled),
      [this, request, response, served, prepared, start, done = std::move(done)](
          absl::StatusOr<RunResult> result, uint64_t queue_ns) {
        absl::Status status = result.status();
        if (status.ok()) {
          status = FillInferResponse(*request, *prepared, *result, *served, *ctx_->resident, response);
        }
        const uint64_t request_ns = static_cast<uint64_t>(absl::ToInt64Nanoseconds(absl::Now() - start));
        if (status.ok()) {
          served->RecordSuccess(request_ns, queue_ns, result->timing, prepared->batch_size);
        } else {
          served->RecordFailure(request_ns);
          status = absl::Status(status.code(), absl::StrCat("model '", served->name(), "': ", status.message()));
        }
        spdlog::debug("[{}] model '{}' v{}: {} in {} us (queue {} us)", request->id(), served->name(),
                      served->version(), status.ok() ? "OK" : status.ToString(), request_ns / 1000,
                      queue_ns / 1000);
        done(status);
      });
}

grpc::ServerUnaryReactor* InferenceService::ModelInfer(grpc::CallbackServerContext* c,
                                                       const ModelInferRequest* req,
                                                       ModelInferResponse* resp) {
  auto* reactor = new InferReactor();
  Infer(req, resp, ClientDeadline(c), [reactor] { return reactor->cancelled(); },
        [reactor](absl::Status s) { reactor->Finish(ToGrpcStatus(s)); });
  return reactor;
}

grpc::ServerBidiReactor<ModelInferRequest, ModelStreamInferResponse>* InferenceService::ModelStreamInfer(
    grpc::CallbackServerContext* c) {
  return new StreamReactor(this, c);
}

}  // namespace vkserve
