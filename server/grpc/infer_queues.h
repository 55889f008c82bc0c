// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// InferQueues: ModelInfer served on gRPC's async API, by a few completion
// queues each drained by one thread of its own. Every other RPC stays on the
// callback API (grpc_service.h: InferenceServiceBase marks ModelInfer alone
// as async).
//
// Why not the callback API for this one RPC: on an H200 machine an empty
// call answered by gRPC 1.51's callback threads took 278-420 us at p50 when
// the server idles 0.7-2 ms between calls (a model's run), against 210-283
// us for one thread blocking on its own completion queue, and several
// threads sharing one queue were in between (benchmarks/server/
// grpc_floor.cc measures it). With one thread per
// queue the thread that gRPC wakes for a call's bytes is the one that takes
// its event: no hand-off between threads before the request is read.
//
// A call: requested on a queue, authorized (authorization.h), handed to
// InferenceService::Infer, which may run it on this queue's thread (an
// inline slot) or answer later from a scheduler thread; the answer is
// Finish()ed from whichever thread has it, and the call is freed on its
// queue's thread once both its Finish and its done notification (which also
// reports a client's cancellation) have come back. Output buffers go back to
// the pool once gRPC has sent them.
//
// Lifecycle: construct before grpc::ServerBuilder::BuildAndStart (it adds
// the queues), Start() after it, Stop() after grpc::Server::Shutdown()
// (Server::Shutdown's order): Stop waits until every call requested is
// answered or has come back unstarted, and only then shuts the queues down,
// since gRPC aborts on an operation begun on a queue shut down. Start and
// Stop from one thread; Stop is idempotent. Thread-safe otherwise.
#ifndef VKSERVE_SERVER_GRPC_INFER_QUEUES_H_
#define VKSERVE_SERVER_GRPC_INFER_QUEUES_H_

#include <memory>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "grpcpp/grpcpp.h"
#include "server/grpc/authorization.h"
#include "server/grpc/grpc_service.h"
#include "server/grpc/output_buffer_pool.h"

namespace vkserve {

class InferQueues {
 public:
  // The default number of queues (and threads): half the cores, 2 to 8,
  // about as many threads as gRPC's own callback pool gives the other RPCs.
  static int DefaultCount();

  // Adds `count` (>= 1) completion queues to `builder`. `service` is the
  // registered service (ModelInfer is requested through it), `infer` runs
  // each call, `authorizer` checks it first; all must outlive Stop().
  // `output_buffers` may be null (responses then free their buffers).
  InferQueues(grpc::ServerBuilder& builder, InferenceServiceBase* service, InferenceService* infer,
              const Authorizer* authorizer, std::shared_ptr<OutputBufferPool> output_buffers,
              int count);
  ~InferQueues();  // Stop()s
  InferQueues(const InferQueues&) = delete;
  InferQueues& operator=(const InferQueues&) = delete;

  // Requests the first calls on every queue and starts their threads.
  // Precondition: the server was built from the builder given above.
  void Start();
  // Shuts the queues down, frees every call still requested, joins.
  void Stop();

  int count() const { return static_cast<int>(queues_.size()); }

 private:
  class Call;
  // Calls requested ahead on each queue, so that a burst of clients finds one.
  static constexpr int kRequestedAhead = 4;

  // Drains one queue until it is shut down.
  static void Poll(grpc::ServerCompletionQueue* queue);
  // A call was requested (false once Stop began: request none) / is over
  // for this class (answered, or came back unstarted).
  bool BeginOutstanding();
  void EndOutstanding();

  InferenceServiceBase* const service_;
  InferenceService* const infer_;
  const Authorizer* const authorizer_;
  const std::shared_ptr<OutputBufferPool> output_buffers_;
  std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues_;
  std::vector<std::thread> threads_;
  Mutex mutex_;
  bool open_ ABSL_GUARDED_BY(mutex_) = true;
  int64_t outstanding_ ABSL_GUARDED_BY(mutex_) = 0;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_GRPC_INFER_QUEUES_H_
