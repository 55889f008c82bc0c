// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// RunRequest: what one Session::Run binds, and RunResult: what it returns.
//
// Each input names a model input, with its dtype and shape, and one source
// of its bytes (InputSource):
//  - HostBytes: one span of dense bytes, copied into GPU-visible memory;
//  - HostPieces: the bytes as consecutive spans, each copied straight to its
//    offset (a batch binds each request's bytes as a piece, with no
//    concatenating copy on the host);
//  - HostInputReader: fills the GPU-visible memory itself, for bytes that
//    must not be mapped, such as a client's shared-memory object, which the
//    client can shrink under a mapping (server/models/shared_memory.h);
//  - DeviceInput: a GPU-resident tensor, bound without a copy.
// Each output listed says where it goes (OutputLocation) and, for a host
// output, may give an OutputSink: the destinations its bytes are copied to
// straight out of GPU-visible memory (e.g. a response's bytes).
//
// CheckInputShape and CheckInput are the one check of an input against the
// model input it binds: the session applies them to every run, and the
// server's request decoding and batching use them rather than their own.
//
// Plain values; the views and functions a request holds must stay valid
// until the run returns. The functions are stateless and thread-safe.
#ifndef VKSERVE_RUNTIME_RUN_REQUEST_H_
#define VKSERVE_RUNTIME_RUN_REQUEST_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/device_tensor.h"
#include "runtime/ir/graph.h"

namespace vkserve {

// Dense, row-major, little-endian bytes, not owned.
using HostBytes = std::span<const uint8_t>;
// Consecutive pieces of dense bytes, in order; their sizes add up to the
// tensor's.
using HostPieces = std::vector<std::span<const uint8_t>>;
// Fills a host input's GPU-visible memory (its dtype and shape give the
// size); its error is the run's.
using HostInputReader = std::function<absl::Status(std::span<uint8_t>)>;
// A GPU-resident tensor; its dtype and shape are the binding's.
using DeviceInput = std::shared_ptr<DeviceTensor>;

using InputSource = std::variant<HostBytes, HostPieces, HostInputReader, DeviceInput>;

struct InputBinding {
  std::string name;
  DataType dtype = DataType::kUndefined;
  std::vector<int64_t> shape;
  InputSource source;

  static InputBinding Host(std::string name, DataType dtype, std::vector<int64_t> shape,
                           HostBytes bytes);
  // Views `tensor`'s bytes.
  static InputBinding Host(std::string name, const HostTensor& tensor);
  static InputBinding Pieces(std::string name, DataType dtype, std::vector<int64_t> shape,
                             HostPieces pieces);
  static InputBinding Read(std::string name, DataType dtype, std::vector<int64_t> shape,
                           HostInputReader reader);
  // Takes the tensor's dtype and shape. REQUIRES: `tensor` is not null.
  static InputBinding Device(std::string name, DeviceInput tensor);

  // The resident tensor, or nullptr for a host input.
  DeviceTensor* device() const;
  bool on_host() const { return !std::holds_alternative<DeviceInput>(source); }
};

// Copies a host input's bytes (its bytes, pieces or reader) into `to`,
// which holds the binding's byte size: the reader's error, or INTERNAL when
// the bytes do not fill `to` exactly. REQUIRES: a host input.
absl::Status CopyHostInput(const InputBinding& binding, std::span<uint8_t> to);

// Elements one input may have: a larger shape is refused before any
// multiplication can overflow.
inline constexpr uint64_t kMaxInputElements = uint64_t{1} << 40;

// Checks `dtype` and `shape` bound as the model input `declared`: the
// dtype, no negative dimension, at most kMaxInputElements elements, and,
// when the model declares a rank, the rank and every fixed dimension.
// Returns the byte size. Every mismatch is INVALID_ARGUMENT naming the input.
absl::StatusOr<uint64_t> CheckInputShape(const ValueInfo& declared, DataType dtype,
                                         const std::vector<int64_t>& shape);

// CheckInputShape on the binding, and its source: host bytes or pieces of
// the byte size, a resident tensor of the binding's dtype and shape.
// Returns the byte size.
absl::StatusOr<uint64_t> CheckInput(const ValueInfo& declared, const InputBinding& binding);

// kDeviceBorrowed: a DeviceTensor viewing the session's own output buffer,
// with no new buffer (the recording stays valid); valid only inside
// Session::Run's `while_held` callback. For sync splits (sync_split.h).
enum class OutputLocation { kHost, kDevice, kDeviceBorrowed };

// Where a host output's bytes go: pieces tiling its `bytes` in order (their
// sizes add up to `bytes`), each writable until the run returns; a piece
// with a null data() is bytes to skip (a padded batch's extra rows). One
// destination is one piece. Called at most once per run, with the output's
// shape and byte size; an empty result declines, and the bytes go to
// RunOutput::host as without a sink.
using OutputPieces = std::vector<std::span<uint8_t>>;
using OutputSink = std::function<OutputPieces(const std::vector<int64_t>& shape, uint64_t bytes)>;

struct OutputBinding {
  std::string name;
  OutputLocation location = OutputLocation::kHost;
  OutputSink sink;  // optional; only for kHost
};

struct RunRequest {
  std::vector<InputBinding> inputs;
  // Outputs not listed go to the host, into bytes of their own.
  std::vector<OutputBinding> outputs;
  // Collect a per-dispatch trace (RunResult::trace). The session records
  // such runs with a timestamp around every dispatch, apart from its
  // unprofiled recording: switching between the two re-records.
  bool profile = false;

  const InputBinding* FindInput(const std::string& name) const;
  const OutputBinding* FindOutput(const std::string& name) const;
  // The binding of output `name`, added (to the host, without a sink) if
  // not listed yet.
  OutputBinding& Output(const std::string& name);
};

struct RunOutput {
  std::string name;
  DataType dtype = DataType::kUndefined;
  std::vector<int64_t> shape;
  HostTensor host;                       // for OutputLocation::kHost
  bool in_sink = false;                  // the bytes went to the output's sink
  std::shared_ptr<DeviceTensor> device;  // for OutputLocation::kDevice
};

// Where one run's time went, in nanoseconds.
// upload + record + submit + wait + readback covers the whole Run() call
// (total_ns) but for a few instructions between them; gpu_ns overlaps
// submit and wait.
struct RunTiming {
  uint64_t upload_ns = 0;  // binding checks, host input bytes into GPU-visible buffers
  uint64_t record_ns = 0;  // command recording (0 when replayed)
  uint64_t submit_ns = 0;  // the vkQueueSubmit call
  uint64_t gpu_ns = 0;     // GPU execution, from timestamp queries
  // gpu_ns without the copies of inputs in and outputs out (staging to and
  // from host memory): the model's own GPU work, as a peer timing kernels on
  // GPU-resident tensors measures it.
  uint64_t gpu_compute_ns = 0;
  uint64_t wait_ns = 0;      // host blocked waiting for completion
  uint64_t readback_ns = 0;  // timestamp results and GPU output bytes to host memory
  uint64_t total_ns = 0;     // the whole Run() call
  bool replayed = false;     // used an existing recording
  // Times the run read data back mid-run: the output counts of nodes whose
  // output shapes depend on data (sync_split.h); 0 for most models.
  int sync_points = 0;
  uint64_t bytes_uploaded = 0;
  uint64_t bytes_read_back = 0;
};

// One span of a run for Chrome-trace profiles: host phases (category "host")
// and GPU dispatches (category "gpu", times on the GPU clock rebased so the
// first dispatch starts at the submit's host time).
struct TraceEvent {
  std::string name;       // node name, or the host phase
  std::string category;   // "host" or "gpu"
  std::string op_type;    // for GPU events
  std::string shapes;     // "float[1,3,224,224] -> float[1,32,112,112]"
  uint64_t start_ns = 0;  // relative to the start of Run()
  uint64_t duration_ns = 0;
};

struct RunResult {
  std::vector<RunOutput> outputs;  // in the model's output order
  RunTiming timing;
  std::vector<TraceEvent> trace;  // when RunRequest::profile
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_RUN_REQUEST_H_
