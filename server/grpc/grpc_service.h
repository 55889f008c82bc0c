// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The gRPC front end: inference.GRPCInferenceService (KServe v2 / Triton
// protocol, every RPC of proto/grpc_service.proto) and grpc.health.v1.Health,
// on gRPC's callback API so that no RPC holds a gRPC thread while a model
// runs, except ModelInfer, which InferQueues serves on the async API
// (inference_service_base.h, infer_queues.h) and hands to Infer() here.
// Infer() checks and binds the request (infer_request.h), hands it to the
// model's Scheduler (scheduler.h: the session pool or the dynamic batcher;
// this layer does not know which) and returns; the scheduler's callback
// builds the response and finishes the call.
//
//   grpc_service.cc     health, metadata, config, statistics, repository,
//                       (each a transport-free Do* method the HTTP front end shares),
//                       shared-memory, trace and log settings RPCs
//   grpc_infer.cc       ModelStreamInfer and the shared Infer()
//
// Deadlines: the client's gRPC deadline, the request's "timeout" parameter
// (microseconds) and the model's queue timeout (of the request's priority
// level, the "priority" parameter); the earliest applies, and a request
// still queued (or in a forming batch) then is answered DEADLINE_EXCEEDED.
// A call the client cancels before it starts running is dropped
// (CANCELLED). A full queue is RESOURCE_EXHAUSTED. absl status codes map 1:1 onto gRPC's.
//
// Thread-safe.
#ifndef VKSERVE_SERVER_GRPC_GRPC_SERVICE_H_
#define VKSERVE_SERVER_GRPC_GRPC_SERVICE_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "config/server_config.h"
#include "grpcpp/grpcpp.h"
#include "proto/grpc_service.grpc.pb.h"
#include "proto/health.grpc.pb.h"
#include "server/grpc/control_worker.h"
#include "server/grpc/inference_service_base.h"
#include "server/grpc/output_buffer_pool.h"
#include "server/models/model_manager.h"
#include "server/models/resident_registry.h"
#include "server/models/shared_memory.h"
#include "server/observability/logging.h"
#include "server/observability/request_tracer.h"

namespace vkserve {

inline constexpr char kServerName[] = "vkserve";
inline constexpr char kServerVersion[] = "0.1.0";
// Model load/unload calls that may wait while one runs.
inline constexpr size_t kMaxQueuedControlCalls = 64;

// What the services share; owned by Server. Pointers must outlive the services.
struct ServiceContext {
  ServerSettings settings;
  ModelManager* models = nullptr;
  ResidentRegistry* resident = nullptr;
  SharedMemoryManager* shared_memory = nullptr;
  RequestTracer* tracer = nullptr;
  LogControl* log = nullptr;
  // Recycled host buffers for outputs read back into responses; null:
  // every response allocates its own.
  std::shared_ptr<OutputBufferPool> output_buffers;
  // The threads serving ModelInfer (infer_queues.h); bounds inline runs.
  int infer_threads = 1;
  // Numbers requests without a client id, for log lines.
  std::atomic<uint64_t> request_sequence{0};
  // False before start-up finishes and once shutdown begins.
  std::atomic<bool> accepting{false};

  // ServerReady and grpc.health: Triton's rule, the server is ready when the
  // models it serves are. Start-up loads every startup model or the server
  // does not start, so after it the server is ready until shutdown. What a
  // client does to one model later (a failed load, an unload, a reload)
  // changes that model's readiness (ModelReady; RepositoryIndex gives the
  // state and reason), never the whole server's: one corrupt upload must
  // not take every healthy model out of its load balancer.
  bool Ready() const { return accepting.load(); }
};

grpc::Status ToGrpcStatus(const absl::Status& status);

// The client's gRPC deadline of a call; InfiniteFuture when it set none.
absl::Time ClientDeadline(const grpc::ServerContextBase& context);

class InferenceService final : public InferenceServiceBase {
 public:
  explicit InferenceService(ServiceContext* context) : ctx_(context) {}
  const std::shared_ptr<OutputBufferPool>& output_buffers() const { return ctx_->output_buffers; }
  ~InferenceService() override;  // runs the queued load/unload calls, joins their thread

  // Runs one inference (or handle operation). `request` and `response` must
  // stay valid until `done` is called (exactly once, maybe before return).
  // `may_run_inline`: the calling thread may run the request itself when
  // its model's scheduler allows it (scheduler.h) and one of the server's
  // few inline slots is free (MaxInlineRuns says why they are few).
  void Infer(const inference::ModelInferRequest* request, inference::ModelInferResponse* response,
             absl::Time deadline, std::function<bool()> cancelled,
             std::function<void(absl::Status)> done, bool may_run_inline = false);

  // The RPCs without their transport: the gRPC methods below and the HTTP
  // front end (server/http/) both answer through these, so both give the
  // same answers, limits and messages. Authorization is the caller's.
  absl::Status DoModelReady(const inference::ModelReadyRequest& req,
                            inference::ModelReadyResponse* resp);
  absl::Status DoServerMetadata(const inference::ServerMetadataRequest& req,
                                inference::ServerMetadataResponse* resp);
  absl::Status DoModelMetadata(const inference::ModelMetadataRequest& req,
                               inference::ModelMetadataResponse* resp);
  absl::Status DoModelConfig(const inference::ModelConfigRequest& req,
                             inference::ModelConfigResponse* resp);
  absl::Status DoModelStatistics(const inference::ModelStatisticsRequest& req,
                                 inference::ModelStatisticsResponse* resp);
  absl::Status DoRepositoryIndex(const inference::RepositoryIndexRequest& req,
                                 inference::RepositoryIndexResponse* resp);
  // `done` is called once, maybe on the control worker's thread.
  void DoRepositoryModelLoad(const inference::RepositoryModelLoadRequest& req,
                             std::function<void(absl::Status)> done);
  void DoRepositoryModelUnload(const inference::RepositoryModelUnloadRequest& req,
                               std::function<void(absl::Status)> done);
  absl::Status DoSystemSharedMemoryStatus(const inference::SystemSharedMemoryStatusRequest& req,
                                          inference::SystemSharedMemoryStatusResponse* resp);
  absl::Status DoSystemSharedMemoryRegister(const inference::SystemSharedMemoryRegisterRequest& req,
                                            inference::SystemSharedMemoryRegisterResponse* resp);
  absl::Status DoSystemSharedMemoryUnregister(
      const inference::SystemSharedMemoryUnregisterRequest& req,
      inference::SystemSharedMemoryUnregisterResponse* resp);
  bool ready() const { return ctx_->Ready(); }

  grpc::ServerUnaryReactor* ServerLive(grpc::CallbackServerContext* c,
                                       const inference::ServerLiveRequest* req,
                                       inference::ServerLiveResponse* resp) override;
  grpc::ServerUnaryReactor* ServerReady(grpc::CallbackServerContext* c,
                                        const inference::ServerReadyRequest* req,
                                        inference::ServerReadyResponse* resp) override;
  grpc::ServerUnaryReactor* ModelReady(grpc::CallbackServerContext* c,
                                       const inference::ModelReadyRequest* req,
                                       inference::ModelReadyResponse* resp) override;
  grpc::ServerUnaryReactor* ServerMetadata(grpc::CallbackServerContext* c,
                                           const inference::ServerMetadataRequest* req,
                                           inference::ServerMetadataResponse* resp) override;
  grpc::ServerUnaryReactor* ModelMetadata(grpc::CallbackServerContext* c,
                                          const inference::ModelMetadataRequest* req,
                                          inference::ModelMetadataResponse* resp) override;
  grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
  ModelStreamInfer(grpc::CallbackServerContext* c) override;
  grpc::ServerUnaryReactor* ModelConfig(grpc::CallbackServerContext* c,
                                        const inference::ModelConfigRequest* req,
                                        inference::ModelConfigResponse* resp) override;
  grpc::ServerUnaryReactor* ModelStatistics(grpc::CallbackServerContext* c,
                                            const inference::ModelStatisticsRequest* req,
                                            inference::ModelStatisticsResponse* resp) override;
  grpc::ServerUnaryReactor* RepositoryIndex(grpc::CallbackServerContext* c,
                                            const inference::RepositoryIndexRequest* req,
                                            inference::RepositoryIndexResponse* resp) override;
  grpc::ServerUnaryReactor* RepositoryModelLoad(
      grpc::CallbackServerContext* c, const inference::RepositoryModelLoadRequest* req,
      inference::RepositoryModelLoadResponse* resp) override;
  grpc::ServerUnaryReactor* RepositoryModelUnload(
      grpc::CallbackServerContext* c, const inference::RepositoryModelUnloadRequest* req,
      inference::RepositoryModelUnloadResponse* resp) override;
  grpc::ServerUnaryReactor* SystemSharedMemoryStatus(
      grpc::CallbackServerContext* c, const inference::SystemSharedMemoryStatusRequest* req,
      inference::SystemSharedMemoryStatusResponse* resp) override;
  grpc::ServerUnaryReactor* SystemSharedMemoryRegister(
      grpc::CallbackServerContext* c, const inference::SystemSharedMemoryRegisterRequest* req,
      inference::SystemSharedMemoryRegisterResponse* resp) override;
  grpc::ServerUnaryReactor* SystemSharedMemoryUnregister(
      grpc::CallbackServerContext* c, const inference::SystemSharedMemoryUnregisterRequest* req,
      inference::SystemSharedMemoryUnregisterResponse* resp) override;
  grpc::ServerUnaryReactor* TraceSetting(grpc::CallbackServerContext* c,
                                         const inference::TraceSettingRequest* req,
                                         inference::TraceSettingResponse* resp) override;
  grpc::ServerUnaryReactor* LogSettings(grpc::CallbackServerContext* c,
                                        const inference::LogSettingsRequest* req,
                                        inference::LogSettingsResponse* resp) override;

 private:
  // Runs `work` on the control worker and calls `done` with its status
  // (model load/unload may take long; front-end threads must not block). A
  // full queue is RESOURCE_EXHAUSTED; once shutdown begins, UNAVAILABLE.
  void RunAside(std::function<absl::Status()> work, std::function<void(absl::Status)> done);

  // Takes one of the inline slots (MaxInlineRuns); false when all are taken.
  bool TakeInlineSlot();
  int MaxInlineRuns() const;

  ServiceContext* const ctx_;
  ControlWorker control_{kMaxQueuedControlCalls};
  std::atomic<int> inline_runs_{0};  // ModelInfer calls running on their gRPC thread now
};

class HealthService final : public grpc::health::v1::Health::CallbackService {
 public:
  explicit HealthService(ServiceContext* context) : ctx_(context) {}
  grpc::ServerUnaryReactor* Check(grpc::CallbackServerContext* c,
                                  const grpc::health::v1::HealthCheckRequest* req,
                                  grpc::health::v1::HealthCheckResponse* resp) override;

 private:
  ServiceContext* const ctx_;
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_GRPC_GRPC_SERVICE_H_
