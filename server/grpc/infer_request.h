// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Conversion between the wire (inference::ModelInferRequest/Response) and the
// runtime (RunRequest/RunResult), with every check a request from an
// untrusted client needs: datatype strings, shapes (negative or enormous
// dimensions refused with overflow-safe arithmetic), byte sizes, missing,
// unknown and duplicate inputs/outputs, raw vs typed contents (never mixed),
// shared-memory ranges and GPU-resident handles. Every refusal is an
// INVALID_ARGUMENT (or NOT_FOUND for an unknown handle/region) whose message
// names the tensor and the problem.
//
// vkserve's parameters (README "GPU-resident outputs"):
//   output parameter  vkserve_location = "gpu" | "cpu"   overrides the
//       model config's preferred location of that output. A GPU output stays
//       in its Vulkan buffer; the response carries its handle in the output's
//       parameter vkserve_gpu_handle and an empty raw_output_contents entry.
//   input parameter   vkserve_gpu_handle = "<handle>"    binds that resident
//       tensor as the input without any copy (the input carries no data; its
//       datatype must match and its shape, if given, too).
//   request parameter vkserve_read_handle = "<handle>"   returns the tensor's
//       bytes as the one output (no model runs; model_name is not looked up);
//       with vkserve_release = true the handle is released after the read.
//   request parameter vkserve_release_handle = "<h1>[,<h2>...]" releases
//       handles (no model runs).
//   request parameter vkserve_trace = true (or "true")   writes a Chrome
//       trace of the request; the response parameter vkserve_trace_path
//       names the file in the server's trace directory, which is not told
//       (docs/observability.md).
//
// Stateless functions; thread-safe given thread-safe arguments.
#ifndef VKSERVE_SERVER_GRPC_INFER_REQUEST_H_
#define VKSERVE_SERVER_GRPC_INFER_REQUEST_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/grpc_service.pb.h"
#include "runtime/session.h"
#include "server/grpc/output_buffer_pool.h"
#include "server/models/model_manager.h"
#include "server/models/resident_registry.h"
#include "server/models/shared_memory.h"

namespace vkserve {

inline constexpr char kGpuHandleParam[] = "vkserve_gpu_handle";
inline constexpr char kLocationParam[] = "vkserve_location";
inline constexpr char kReadHandleParam[] = "vkserve_read_handle";
inline constexpr char kReleaseParam[] = "vkserve_release";
inline constexpr char kReleaseHandleParam[] = "vkserve_release_handle";
inline constexpr char kTimeoutParam[] = "timeout";      // microseconds
inline constexpr char kPriorityParam[] = "priority";    // dynamic batching's level; 0 = default
inline constexpr char kTraceParam[] = "vkserve_trace";  // request: bool
inline constexpr char kTracePathParam[] = "vkserve_trace_path";  // response: string

// A request checked and bound, ready for Scheduler::Submit. Owns the bytes
// converted from typed contents; the RunRequest's views point into it and
// into the wire request, so both must outlive the run. A shared-memory input
// is read (pread) straight into GPU-visible memory during the run.
struct PreparedInfer {
  struct Output {
    std::string name;
    bool resident = false;
    std::optional<SharedMemoryManager::Range> shm;  // write the result here
    std::string shm_region;
  };
  RunRequest run;
  std::vector<Output> outputs;  // in response order
  std::vector<std::vector<uint8_t>> owned;
  int64_t batch_size = 1;
  std::optional<absl::Duration> timeout;  // the request's "timeout" parameter
  uint64_t priority = 0;                  // the request's "priority" parameter
  // Per model output: the response bytes the run reads host outputs back
  // into (their OutputSink), moved into the response after.
  std::vector<std::string> raw_buffers;
  // Where raw_buffers come from and, when not moved into a response (a
  // failed or batched run), go back to; may be null.
  std::shared_ptr<OutputBufferPool> output_buffers;

  PreparedInfer() = default;
  PreparedInfer(const PreparedInfer&) = delete;
  PreparedInfer& operator=(const PreparedInfer&) = delete;
  ~PreparedInfer();
};

// Checks `request` against `model` and binds its inputs. Host outputs are
// read back straight into their response bytes (buffers from
// `output_buffers` when not null, which the PreparedInfer shares) or
// shared-memory region.
absl::StatusOr<std::unique_ptr<PreparedInfer>> PrepareInfer(
    const inference::ModelInferRequest& request, const ServedModel& model,
    ResidentRegistry& resident, const SharedMemoryManager& shm,
    std::shared_ptr<OutputBufferPool> output_buffers = nullptr);

// Fills `response` (model name/version, id, one outputs[] entry and one
// raw_output_contents entry per requested output, in order). Resident
// outputs are registered; on failure the handles added here are released.
absl::Status FillInferResponse(const inference::ModelInferRequest& request, PreparedInfer& prepared,
                               RunResult& result, const ServedModel& model,
                               ResidentRegistry& resident, inference::ModelInferResponse* response);

// Gives every raw_output_contents buffer of a sent `response` to `pool`
// (where FillInferResponse's readbacks took them), leaving them empty.
void RecycleOutputBuffers(inference::ModelInferResponse* response, OutputBufferPool* pool);

// The request's vkserve_trace parameter: false when absent; INVALID_ARGUMENT
// when it is neither a bool nor "true"/"false".
absl::StatusOr<bool> TraceRequested(const inference::ModelInferRequest& request);

// True when `request` is a handle operation (vkserve_read_handle or
// vkserve_release_handle) rather than an inference.
bool IsHandleRequest(const inference::ModelInferRequest& request);

// Performs a handle operation. NOT_FOUND for an unknown or released handle.
absl::Status RunHandleRequest(const inference::ModelInferRequest& request,
                              ResidentRegistry& resident, inference::ModelInferResponse* response);

// DataType for a KServe datatype string ("FP32"...); kUndefined if unknown.
DataType ParseKServeDataType(std::string_view name);

}  // namespace vkserve

#endif  // VKSERVE_SERVER_GRPC_INFER_REQUEST_H_
