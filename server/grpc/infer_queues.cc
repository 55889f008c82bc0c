// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/grpc/infer_queues.h"

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "base/happens_before.h"
#include "base/host_threads.h"
#include "base/mutex.h"
#include "server/grpc/infer_request.h"

namespace vkserve {

// One ModelInfer call from its request to its last event. Its events come
// back on its queue, so one thread handles them all; the answer may be
// given (Answer) from any thread. Three owners: the Finish event, the done
// notification and Answer until its Finish has returned; the last frees it.
class InferQueues::Call {
 public:
  enum class Event : uint8_t { kRequested, kFinished, kDone };
  struct Tag {
    Call* call;
    Event event;
  };

  // Requests the next ModelInfer call on `queue` unless Stop began.
  static void Request(InferQueues* owner, grpc::ServerCompletionQueue* queue) {
    if (!owner->BeginOutstanding()) return;
    auto* call = new Call(owner, queue);
    call->context_.AsyncNotifyWhenDone(&call->done_tag_);
    owner->service_->RequestModelInfer(&call->context_, &call->request_, &call->responder_, queue,
                                       queue, &call->requested_tag_);
  }

  // Handles one event of this call; may free it.
  void On(Event event, bool ok) {
    VKSERVE_HAPPENS_AFTER(this);
    switch (event) {
      case Event::kRequested:
        // Not ok: the server is shutting down and no call came. No done
        // notification follows for a call that never started.
        if (!ok) {
          InferQueues* owner = owner_;
          delete this;
          owner->EndOutstanding();
          return;
        }
        Request(owner_, queue_);  // the successor first: this one may run inline
        Begin();
        return;
      case Event::kFinished:
        if (owner_->output_buffers_ != nullptr) {
          RecycleOutputBuffers(&response_, owner_->output_buffers_.get());
        }
        break;
      case Event::kDone:
        // Called here only: IsCancelled is defined once this event is out.
        cancelled_.store(context_.IsCancelled());
        break;
    }
    Unref();
  }

 private:
  Call(InferQueues* owner, grpc::ServerCompletionQueue* queue)
      : owner_(owner), queue_(queue), responder_(&context_) {}
  ~Call() = default;

  void Begin() {
    if (absl::Status allowed = AuthorizeCall(*owner_->authorizer_, context_, "ModelInfer");
        !allowed.ok()) {
      return Answer(allowed);
    }
    owner_->infer_->Infer(
        &request_, &response_, ClientDeadline(context_), [this] { return cancelled_.load(); },
        [this](absl::Status s) { Answer(s); }, /*may_run_inline=*/true);
  }

  // Sends the answer; exactly once per started call, from any thread.
  void Answer(const absl::Status& status) {
    VKSERVE_HAPPENS_BEFORE(this);
    if (status.ok()) {
      responder_.Finish(response_, grpc::Status::OK, &finished_tag_);
    } else {
      responder_.FinishWithError(ToGrpcStatus(status), &finished_tag_);
    }
    InferQueues* owner = owner_;
    Unref();
    owner->EndOutstanding();
  }

  void Unref() {
    VKSERVE_HAPPENS_BEFORE(this);
    if (owners_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      VKSERVE_HAPPENS_AFTER(this);
      delete this;
    }
  }

  InferQueues* const owner_;
  grpc::ServerCompletionQueue* const queue_;
  grpc::ServerContext context_;
  inference::ModelInferRequest request_;
  inference::ModelInferResponse response_;
  grpc::ServerAsyncResponseWriter<inference::ModelInferResponse> responder_;
  Tag requested_tag_{this, Event::kRequested};
  Tag finished_tag_{this, Event::kFinished};
  Tag done_tag_{this, Event::kDone};
  std::atomic<bool> cancelled_{false};
  std::atomic<int> owners_{3};
};

int InferQueues::DefaultCount() {
  return std::clamp(HostCores() / 2, 2, 8);
}

InferQueues::InferQueues(grpc::ServerBuilder& builder, InferenceServiceBase* service,
                         InferenceService* infer, const Authorizer* authorizer,
                         std::shared_ptr<OutputBufferPool> output_buffers, int count)
    : service_(service),
      infer_(infer),
      authorizer_(authorizer),
      output_buffers_(std::move(output_buffers)) {
  for (int i = 0; i < std::max(count, 1); ++i) queues_.push_back(builder.AddCompletionQueue());
}

InferQueues::~InferQueues() { Stop(); }

void InferQueues::Start() {
  if (started_) return;
  started_ = true;
  for (auto& queue : queues_) {
    for (int i = 0; i < kRequestedAhead; ++i) Call::Request(this, queue.get());
    threads_.emplace_back([q = queue.get()] { Poll(q); });
  }
}

bool InferQueues::BeginOutstanding() {
  MutexLock lock(&mutex_);
  if (!open_) return false;
  ++outstanding_;
  return true;
}

void InferQueues::EndOutstanding() {
  MutexLock lock(&mutex_);
  --outstanding_;
}

void InferQueues::Stop() {
  if (stopped_) return;
  stopped_ = true;
  {
    MutexLock lock(&mutex_);
    open_ = false;
    // After grpc::Server::Shutdown every call requested comes back, and every
    // call started is answered (Server::Shutdown drains the models first).
    auto drained = [](int64_t* n) { return *n == 0; };
    mutex_.Await(Condition(+drained, &outstanding_));
  }
  for (auto& queue : queues_) queue->Shutdown();
  if (!started_) {  // no thread drains them
    for (auto& queue : queues_) Poll(queue.get());
  }
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void InferQueues::Poll(grpc::ServerCompletionQueue* queue) {
  void* tag = nullptr;
  bool ok = false;
  while (queue->Next(&tag, &ok)) {
    auto* t = static_cast<Call::Tag*>(tag);
    t->call->On(t->event, ok);
  }
}

}  // namespace vkserve
