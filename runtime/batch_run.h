// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BatchRun: several requests run as one batch, and the batch's results
// split among them. No concatenating copy is made:
//  - each request's input bytes are pieces of the batch's input
//    (HostPieces), copied by the run straight to their offset in the
//    GPU-visible upload buffer; when a request's input is read rather than
//    viewed (a shared-memory input), the batch's input is read, each
//    request filling its own slice;
//  - each request's host outputs are its slices of the batch's outputs (the
//    batch's OutputSink gives the requests' pieces), copied by the run
//    straight into the request's own destination (its own sink's pieces,
//    e.g. its response);
//  - GPU-resident inputs (DeviceTensor bindings) are gathered on the GPU into
//    one device buffer for the batch (host pieces of the same input are
//    uploaded into it), and GPU-resident outputs are sliced on the GPU into
//    one DeviceTensor per request: one extra submission each way. The
//    gathered buffer is new for every batch, so such a batch records its
//    command buffer instead of replaying one.
// Which requests may share a batch is the caller's choice (the server's
// dynamic batcher): they must agree on every input's name, dtype and
// non-batch dimensions, and on which outputs stay on the GPU.
//
// The free functions are stateless. A BatchRun is used by one thread at a
// time: built, run once, split.
#ifndef VKSERVE_RUNTIME_BATCH_RUN_H_
#define VKSERVE_RUNTIME_BATCH_RUN_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/model.h"
#include "runtime/run_request.h"

namespace vkserve {

// One request of a batch: its run, whose leading dimension is its batch size.
struct BatchMember {
  const RunRequest* run = nullptr;  // not owned
  int64_t batch_size = 0;
};

// Whether a batch of `members` may be padded (BatchRun's `rows`): every
// input is host bytes and every output goes to the host. Resident inputs
// and outputs are gathered and sliced on the GPU, which pads nothing.
bool CanPad(const std::vector<BatchMember>& members);
// The zeros padding `members` to `rows` takes: its largest input's
// padding rows, in bytes (0 without padding).
uint64_t PaddingBytes(const std::vector<BatchMember>& members, int64_t rows);
// The input shapes of a batch of `rows` rows of requests like `member`, in
// `model`'s input order (Model::HasPlan's argument); empty when `member`
// lacks an input or one has no batch dimension (its run reports it).
std::vector<std::vector<int64_t>> BatchShapes(const Model& model, const RunRequest& member,
                                              int64_t rows);

class BatchRun {
 public:
  // `members` (their runs outlive the BatchRun) may share a batch (above).
  // `model` (whose allocator and device gather and slice resident tensors)
  // outlives it too. `rows`, when larger than the members' batch sizes
  // added up, pads the batch with zero rows to that size (a size whose plan
  // is built), viewing `zeros` (shared, read only, so a scheduler keeps one
  // block for every batch); their outputs are dropped.
  // REQUIRES: rows is at most the sum, or CanPad(members) and `zeros`
  // holds at least PaddingBytes(members, rows) zero bytes.
  BatchRun(const Model& model, std::vector<BatchMember> members, int64_t rows = 0,
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
  // The batch's binding of the input `first` (the first request's) names:
  // every request's pieces and the padding, a reader of every request's
  // bytes, or (resident) none until Gather.
  InputBinding BatchInput(const InputBinding& first);
  // The batch's OutputSink for model output `output`: every request's
  // pieces (its sink's, or bytes owned here), then the padding's, skipped.
  OutputPieces Scatter(size_t output, const std::vector<int64_t>& shape, uint64_t bytes);
  absl::Status Gather(InputBinding& batch);
  // Per request, its slice of each resident output of `result`, as
  // DeviceTensors, in result.outputs order (null for host outputs).
  absl::StatusOr<std::vector<std::vector<std::shared_ptr<DeviceTensor>>>> SliceResident(
      const RunResult& result);

  const Model& model_;
  const std::vector<BatchMember> members_;
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

#endif  // VKSERVE_RUNTIME_BATCH_RUN_H_
