// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Batch assembly: what lets requests run as one batch, and the batch's
// RunRequest and results. No concatenating copy is made:
//  - each request's input bytes are pieces of the batch's input
//    (HostTensorView::parts), copied by the run straight to their offset in
//    the GPU-visible upload buffer; a request whose input is read rather
//    than viewed (a shared-memory input) reads into its own slice;
//  - each request's host outputs are its slices of the batch's outputs
//    (RunRequest::host_output_scatter), copied by the run straight into the
//    request's own destination (its host_output_sink, e.g. its response);
//  - GPU-resident inputs (DeviceTensor bindings) are gathered on the GPU into
//    one device buffer for the batch (host pieces of the same input are
//    uploaded into it), and GPU-resident outputs are sliced on the GPU into
//    one DeviceTensor per request: one extra submission each way. The
//    gathered buffer is new for every batch, so such a batch records its
//    command buffer instead of replaying one.
//
// BatchKey() is a stateless function. A BatchRun is used by one thread at a
// time: built, run once, split.
#ifndef VKSERVE_SERVER_SCHEDULING_BATCH_ASSEMBLY_H_
#define VKSERVE_SERVER_SCHEDULING_BATCH_ASSEMBLY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "server/scheduling/scheduler.h"

namespace vkserve {

// What requests must share to run in one batch: every input's name,
// datatype and non-batch dimensions, and which outputs stay on the GPU.
// nullopt when the request must run alone: no batch dimension, a trace
// (which describes one run), or inputs that are not bytes of their shape's
// size or a released tensor (its run alone reports the error).
std::optional<std::string> BatchKey(const SchedulerRequest& request);

// Whether a batch of `requests` may be padded (BatchRun's `rows`): every
// input is host bytes and every output goes to the host. Resident inputs
// and outputs are gathered and sliced on the GPU, which pads nothing.
bool CanPad(const std::vector<const SchedulerRequest*>& requests);
// The zeros padding `requests` to `rows` takes: its largest input's
// padding rows, in bytes (0 without padding).
uint64_t PaddingBytes(const std::vector<const SchedulerRequest*>& requests, int64_t rows);

class BatchRun {
 public:
  // `requests` (not owned; they outlive the BatchRun) share one BatchKey.
  // `model` (whose allocator and device gather and slice resident tensors)
  // outlives it too. `rows`, when larger than the requests' batch sizes
  // added up, pads the batch with zero rows to that size (a size whose plan
  // is built: see DynamicBatcher), viewing `zeros` (shared, read only, so a
  // scheduler keeps one block for every batch); their outputs are dropped.
  // REQUIRES: rows is at most the sum, or CanPad(requests) and `zeros`
  // holds at least PaddingBytes(requests, rows) zero bytes.
  BatchRun(const Model& model, std::vector<const SchedulerRequest*> requests, int64_t rows = 0,
           std::shared_ptr<const std::vector<uint8_t>> zeros = nullptr);
  BatchRun(const BatchRun&) = delete;
  BatchRun& operator=(const BatchRun&) = delete;

  // Gathers the GPU-resident inputs (a no-op without any). Call once
  // before run(); an error is every request's.
  absl::Status Prepare();

  // The batch's request: every input's batch dimension is the sum of the
  // requests'. Refers to this BatchRun, which must outlive its run.
  const RunRequest& run() const { return run_; }
  // The requests' batch sizes added up, and the zero rows padding them.
  int64_t batch_size() const { return total_; }
  int64_t padding() const { return padding_; }

  // Each request's share of the batch's `result`, in request order: its
  // slice of every output (a DeviceTensor of its own for resident ones),
  // with the batch's timing. The batch's error (or INTERNAL when an output
  // has no batch dimension) goes to every request.
  std::vector<absl::StatusOr<RunResult>> Split(absl::StatusOr<RunResult> result);

 private:
  std::vector<std::span<uint8_t>> Scatter(size_t output, const std::vector<int64_t>& shape,
                                          uint64_t bytes);
  absl::Status Gather(InputBinding& batch);
  // Per request, its slice of each resident output of `result`, as
  // DeviceTensors, in result.outputs order (null for host outputs).
  absl::StatusOr<std::vector<std::vector<std::shared_ptr<DeviceTensor>>>> SliceResident(
      const RunResult& result);

  const Model& model_;
  const std::vector<const SchedulerRequest*> requests_;
  int64_t total_ = 0;
  int64_t padding_ = 0;
  std::shared_ptr<const std::vector<uint8_t>> zeros_;  // viewed by the padding rows
  RunRequest run_;
  // [request][output]: bytes a request's sink did not take.
  std::vector<std::vector<std::vector<uint8_t>>> owned_;
  std::vector<std::vector<bool>> in_sink_;
  absl::Status scatter_error_;
  std::vector<size_t> gather_;  // inputs (run_.inputs index) gathered on the GPU
};

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SCHEDULING_BATCH_ASSEMBLY_H_
