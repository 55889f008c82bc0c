// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Server: the running daemon. Owns the GPUs (device_set.h), the loaded models, the
// GPU-resident output registry (idle handles expired by an Asio timer),
// the shared-memory regions, the Prometheus metrics and their endpoint, the
// request tracer, the KServe v2 HTTP front end (server/http/, on the same
// request path) and the gRPC server with its two services: the inference
// service behind the authorizing wrapper (authorization.h), its ModelInfer
// served by InferQueues (infer_queues.h), and, with grpc.tls configured,
// TLS credentials reloadable by ReloadTls().
//
// Shutdown() (also run by the destructor) stops accepting inferences (new
// ones get UNAVAILABLE), drains every model's scheduler (batches still
// forming run at once; every accepted request is answered), lets gRPC
// finish every call in flight for up to exit_timeout, then stops. Signal
// handling is the caller's (serve_command.cc: the main thread's sigwait).
//
// Thread-safe.
#ifndef VKSERVE_SERVER_DAEMON_SERVER_H_
#define VKSERVE_SERVER_DAEMON_SERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "base/host_heap.h"
#include "base/mutex.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/steady_timer.hpp"
#include "config/server_config.h"
#include "gpu/fault_injector.h"
#include "grpcpp/grpcpp.h"
#include "server/grpc/authorization.h"
#include "server/grpc/grpc_service.h"
#include "server/grpc/infer_queues.h"
#include "server/grpc/output_buffer_pool.h"
#include "server/models/device_set.h"
#include "server/models/model_manager.h"
#include "server/models/resident_registry.h"
#include "server/models/shared_memory.h"
#include "server/observability/metrics.h"
#include "server/observability/request_tracer.h"
#include "server/tls/tls_credentials.h"

namespace vkserve {

class HttpFrontEnd;     // server/http/http_front_end.h
class MetricsEndpoint;  // server/http/metrics_endpoint.h

// Observers and test seams; production servers may leave them empty.
struct ServerHooks {
  // Called before each start-up model's load (systemd STATUS= lines).
  LoadProgress on_model_loading;
  // Injected GPU faults on every device the server opens.
  std::shared_ptr<gpu::FaultInjector> faults;
  // Called when a device recovery is about to reopen a lost device.
  std::function<void()> before_device_reopen;
  // DeviceSetOptions::device_per_selector (tests: one device as several GPUs).
  bool device_per_selector = false;
};

class Server {
 public:
  // Opens the GPU, loads the startup models (any failure stops start-up and
  // is returned, naming the model) and starts listening (grpc_port 0 picks a
  // free port; see port()).
  static absl::StatusOr<std::unique_ptr<Server>> Start(const ServerSettings& settings,
                                                       const ServerHooks& hooks = {});
  ~Server();

  // Idempotent; blocks until every accepted request is answered.
  void Shutdown();

  int port() const { return port_; }
  // The metrics endpoint's port; 0 when metrics are disabled.
  int metrics_port() const;
  // "127.0.0.1:8001" with the real port.
  std::string address() const;
  // The same for the metrics endpoint.
  std::string metrics_address() const;
  // The KServe v2 HTTP front end's port and address; 0 and "" when off.
  int http_port() const;
  std::string http_address() const;
  // The same as ReloadTls for http.tls.
  absl::Status ReloadHttpTls();

  // Re-reads the TLS files (SIGHUP). OK: new connections get the new
  // certificate within about a second. Else the old one stays and the error
  // says why. FAILED_PRECONDITION without TLS.
  absl::Status ReloadTls();
  // The same for metrics.tls (connections after it get the new material).
  absl::Status ReloadMetricsTls();

  ModelManager& models() { return *models_; }
  DeviceSet& devices() { return *devices_; }
  ResidentRegistry& resident() { return *resident_; }
  SharedMemoryManager& shared_memory() { return *shared_memory_; }
  Metrics& metrics() { return *metrics_; }
  LogControl& log() { return *log_; }

  // The recycled output buffers of ModelInfer responses (output_buffer_pool.h).
  OutputBufferPoolStats output_buffer_stats() const { return output_buffers_->stats(); }

 private:
  explicit Server(const ServerSettings& settings);
  // Releases idle GPU-resident outputs every second (an Asio timer on the
  // housekeeping thread), re-arming itself.
  void ArmExpiry();
  // The gauges' values now (called by the metrics endpoint on a scrape).
  GaugeSample SampleGauges() const;
  // The listening credentials: TLS (tls_) or plaintext.
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(
      const ServerSettings& settings);
  // Warnings for settings that expose the server (non-loopback without TLS
  // or auth).
  static void WarnIfExposed(const ServerSettings& settings);

  std::unique_ptr<DeviceSet> devices_;
  // Declared before the models: a ModelMetrics must not outlive it.
  std::unique_ptr<Metrics> metrics_;
  // With metrics.enabled; renders metrics_. Declared after it: destroyed first.
  std::unique_ptr<MetricsEndpoint> metrics_endpoint_;
  std::unique_ptr<RequestTracer> tracer_;
  std::unique_ptr<LogControl> log_;
  std::unique_ptr<ModelManager> models_;
  std::unique_ptr<ResidentRegistry> resident_;
  std::unique_ptr<SharedMemoryManager> shared_memory_;
  ServiceContext context_;
  std::unique_ptr<InferenceService> inference_;
  std::unique_ptr<HealthService> health_;
  std::unique_ptr<Authorizer> authorizer_;
  // ModelInfer's messages: their output buffers go back to the pool.
  // Shared with every response holder and request in flight: gRPC may
  // release the last ModelInfer messages on its own threads as it stops.
  std::shared_ptr<OutputBufferPool> output_buffers_;
  std::unique_ptr<InferenceServiceBase> authorizing_;  // wraps inference_
  std::unique_ptr<TlsCredentials> tls_;                // null without TLS
  std::unique_ptr<grpc::Server> grpc_;
  std::unique_ptr<HttpFrontEnd> http_;  // with http.port; calls inference_
  // ModelInfer's completion queues: declared after grpc_, so destroyed
  // (stopped) before it.
  std::unique_ptr<InferQueues> infer_queues_;
  int port_ = 0;

  Mutex mutex_;
  bool shut_down_ ABSL_GUARDED_BY(mutex_) = false;
  // Housekeeping off the request path (the resident-output expiry sweep).
  boost::asio::io_context housekeeping_;
  boost::asio::steady_timer expiry_timer_{housekeeping_};
  std::thread housekeeping_thread_;
  HeapTrimmer heap_trimmer_;  // on the housekeeping thread only
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_DAEMON_SERVER_H_
