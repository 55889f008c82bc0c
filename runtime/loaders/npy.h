// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// NumPy .npy files to and from HostTensor, for `vkserve infer --input
// NAME=FILE.npy` and its outputs. Reads format versions 1.0, 2.0 and 3.0;
// little-endian (or byte-order-free) dtypes only: '<f2' '<f4' '<f8' '|i1'
// '<i2' '<i4' '<i8' '|u1' '<u2' '<u4' '<u8' '|b1' '<c8' '<c16' ('<i1', '<u1'
// and '<b1' are accepted as aliases), and bfloat16, which NumPy lacks, as
// raw little-endian 16-bit words in a 2-byte void, '<V2' (also read: '|V2',
// '=V2'; ml_dtypes' bfloat16 saves as '<V2'). C order only: fortran_order True is
// UNIMPLEMENTED, as are big-endian and other dtypes. Files are untrusted: a
// malformed header or a data size that does not match the shape is an
// INVALID_ARGUMENT Status naming the file; a missing file is NOT_FOUND.
// Writes version 1.0 (2.0 when the header needs it), data 64-byte aligned,
// exactly as numpy.save does. Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_LOADERS_NPY_H_
#define VKSERVE_RUNTIME_LOADERS_NPY_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/ir/graph.h"

namespace vkserve {

// Reads the .npy file at `path`.
absl::StatusOr<HostTensor> ReadNpy(const std::string& path);

// Parses .npy bytes held in memory; `name` is used in error messages.
absl::StatusOr<HostTensor> ParseNpy(std::string_view bytes, const std::string& name = "npy");

// Writes `tensor` to `path` (replacing it). INVALID_ARGUMENT when the
// tensor's data size does not match its shape, UNIMPLEMENTED for dtypes
// NumPy has no little-endian form of (string). bfloat16 is written as '<V2'.
absl::Status WriteNpy(const HostTensor& tensor, const std::string& path);

// The bytes WriteNpy would write.
absl::StatusOr<std::string> SerializeNpy(const HostTensor& tensor);

// The numpy descr string for `type` ("<f4", "|b1", ...), or "" when none.
std::string_view NpyDescr(DataType type);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_LOADERS_NPY_H_
