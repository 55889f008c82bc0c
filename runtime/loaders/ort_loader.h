// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Loading ONNX Runtime's `.ort` files (flatbuffers; schema in
// runtime/loaders/ort_format.fbs) into vkserve's format-independent Graph — the same
// Graph the ONNX loader makes, through the same GraphBuilder checks.
//
// A file is untrusted bytes. Before any field is read the whole buffer
// passes the flatbuffers Verifier (bounded depth and table count); then
// every count, dimension and data size is checked against the buffer and the
// declared shapes, a table referenced twice is refused (a well-formed writer
// never shares them, and sharing would multiply the work and memory), and
// the bytes the Graph takes are charged to a budget of a small multiple of
// the file's size. Errors, all naming the file and the item:
//   INVALID_ARGUMENT  not a verifiable ORT buffer, inconsistent sizes,
//                     dangling or twice-defined values, cycles, ...;
//   UNIMPLEMENTED     a valid file using what vkserve does not run (format
//                     versions other than 1-6, string/float8 tensors, sparse
//                     initializers, sequence/map values, nodes compiled by
//                     an execution provider, external data);
//   NOT_FOUND         a missing file.
// Saved runtime optimizations and the kernel type-string resolver are
// verified and ignored: ONNX Runtime uses them to pick CPU kernels, and
// vkserve plans every node for the GPU from the graph alone.
//
// Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_LOADERS_ORT_LOADER_H_
#define VKSERVE_RUNTIME_LOADERS_ORT_LOADER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/ir/graph.h"

namespace vkserve {

struct OrtLoadOptions {
  // Deepest nesting of subgraphs (If/Loop/Scan bodies) accepted.
  int max_subgraph_depth = 16;
  // Upper bound on one tensor's bytes.
  uint64_t max_tensor_bytes = uint64_t{1} << 40;
  // The Graph may take at most this many bytes per byte of file (plus a
  // fixed allowance): names become std::strings, shapes vectors.
  uint64_t max_bytes_per_file_byte = 4;
};

// The format versions (InferenceSession.ort_version) this loader reads.
bool IsSupportedOrtFormatVersion(absl::string_view version);

// Loads an `.ort` file. Initializers of 128 bytes or more whose data is
// aligned for their element type are views into the file's bytes, which
// the Graph then keeps alive: no second copy of the weights.
absl::StatusOr<Graph> LoadOrtModel(const std::string& path, const OrtLoadOptions& options = {});

// Loads `.ort` bytes held in memory (copied from; the caller keeps them);
// `name` is used in messages.
absl::StatusOr<Graph> LoadOrtModelFromBytes(absl::string_view bytes,
                                            const std::string& name = "model",
                                            const OrtLoadOptions& options = {});

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_LOADERS_ORT_LOADER_H_
