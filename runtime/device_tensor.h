// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// DeviceTensor: a tensor resident in a GPU buffer — a run's output kept on the
// GPU, which a later run can take as an input without any copy, which can be
// read back to the host, or released. After Release() every use is a
// FAILED_PRECONDITION Status naming the tensor.
//
// Thread-safe: the buffer is guarded by a mutex; runs that bind it keep it
// alive (shared ownership) until their GPU work completes, even if it is
// released meanwhile.
#ifndef VKSERVE_RUNTIME_DEVICE_TENSOR_H_
#define VKSERVE_RUNTIME_DEVICE_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "gpu/allocator.h"
#include "gpu/buffer.h"
#include "gpu/gpu_context.h"
#include "runtime/ir/graph.h"

namespace vkserve {

class DeviceTensor {
 public:
  // Takes ownership of `buffer`, which holds the tensor densely and came from
  // `gpu.allocator` (also used for staging on read). The tensor keeps
  // `gpu.owner` alive; without an owner, the allocator must outlive it.
  DeviceTensor(std::string name, DataType dtype, std::vector<int64_t> shape, gpu::Buffer buffer,
               const GpuContext& gpu);

  // A tensor viewing `buffer` without owning it (nullptr: no bytes): valid
  // only while the buffer's owner keeps it, and it must not escape that.
  // For a session's own output buffers (OutputLocation::kDeviceBorrowed).
  static std::shared_ptr<DeviceTensor> Borrow(std::string name, DataType dtype,
                                              std::vector<int64_t> shape, const gpu::Buffer* buffer,
                                              const GpuContext& gpu);

  // The same bytes under `shape` (of this dtype): the leading bytes of this
  // tensor's buffer, which the new tensor shares. FAILED_PRECONDITION once
  // released; INVALID_ARGUMENT when `shape` needs more bytes.
  absl::StatusOr<std::shared_ptr<DeviceTensor>> WithShape(std::vector<int64_t> shape) const;

  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  uint64_t byte_size() const { return byte_size_; }
  // The device holding the buffer: a run on another device cannot bind it
  // and must copy it (cross_device_inputs.h).
  const gpu::Device* device() const { return device_; }

  // The buffer, shared with the caller for the duration of a run.
  // FAILED_PRECONDITION once released.
  absl::StatusOr<std::shared_ptr<const gpu::Buffer>> buffer() const;

  // Copies the tensor to the host. With `release`, frees the GPU buffer after.
  absl::StatusOr<HostTensor> Read(bool release = false);

  // Frees the GPU buffer (once every run using it has finished with it).
  // Idempotent.
  void Release();
  bool released() const;

 private:
  DeviceTensor(const DeviceTensor& from, std::vector<int64_t> shape,
               std::shared_ptr<const gpu::Buffer> buffer);
  DeviceTensor(std::string name, DataType dtype, std::vector<int64_t> shape,
               std::shared_ptr<const gpu::Buffer> buffer, const GpuContext& gpu);

  const std::shared_ptr<const void> gpu_owner_;  // first: destroyed after the buffer
  const std::string name_;
  const DataType dtype_;
  const std::vector<int64_t> shape_;
  const uint64_t byte_size_;
  const gpu::Device* const device_;
  gpu::Allocator* const allocator_;
  mutable Mutex mutex_;
  std::shared_ptr<const gpu::Buffer> buffer_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_DEVICE_TENSOR_H_
