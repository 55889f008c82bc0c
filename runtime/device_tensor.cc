// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/device_tensor.h"

#include "absl/strings/str_cat.h"
#include "gpu/transfer.h"
#include "runtime/op/op_util.h"

namespace vkserve {

DeviceTensor::DeviceTensor(std::string name, DataType dtype, std::vector<int64_t> shape,
                           gpu::Buffer buffer, const GpuContext& gpu)
    : gpu_owner_(gpu.owner),
      name_(std::move(name)),
      dtype_(dtype),
      shape_(std::move(shape)),
      byte_size_(static_cast<uint64_t>(NumElements(shape_)) * DataTypeSize(dtype)),
      device_(gpu.device),
      allocator_(gpu.allocator),
      buffer_(std::make_shared<const gpu::Buffer>(std::move(buffer))) {}

DeviceTensor::DeviceTensor(const DeviceTensor& from, std::vector<int64_t> shape,
                           std::shared_ptr<const gpu::Buffer> buffer)
    : gpu_owner_(from.gpu_owner_),
      name_(from.name_),
      dtype_(from.dtype_),
      shape_(std::move(shape)),
      byte_size_(static_cast<uint64_t>(NumElements(shape_)) * DataTypeSize(dtype_)),
      device_(from.device_),
      allocator_(from.allocator_),
      buffer_(std::move(buffer)) {}

DeviceTensor::DeviceTensor(std::string name, DataType dtype, std::vector<int64_t> shape,
                           std::shared_ptr<const gpu::Buffer> buffer, const GpuContext& gpu)
    : gpu_owner_(gpu.owner),
      name_(std::move(name)),
      dtype_(dtype),
      shape_(std::move(shape)),
      byte_size_(static_cast<uint64_t>(NumElements(shape_)) * DataTypeSize(dtype)),
      device_(gpu.device),
      allocator_(gpu.allocator),
      buffer_(std::move(buffer)) {}

std::shared_ptr<DeviceTensor> DeviceTensor::Borrow(std::string name, DataType dtype,
                                                   std::vector<int64_t> shape,
                                                   const gpu::Buffer* buffer,
                                                   const GpuContext& gpu) {
  // The aliasing constructor with no owner: a pointer that frees nothing.
  std::shared_ptr<const gpu::Buffer> view(std::shared_ptr<const gpu::Buffer>(), buffer);
  return std::shared_ptr<DeviceTensor>(
      new DeviceTensor(std::move(name), dtype, std::move(shape), std::move(view), gpu));
}

absl::StatusOr<std::shared_ptr<DeviceTensor>> DeviceTensor::WithShape(
    std::vector<int64_t> shape) const {
  ASSIGN_OR_RETURN(std::shared_ptr<const gpu::Buffer> buffer, this->buffer());
  for (int64_t d : shape) {
    if (d < 0)
      return absl::InvalidArgumentError(absl::StrCat("device tensor '", name_, "': negative dim"));
  }
  if (static_cast<uint64_t>(NumElements(shape)) * DataTypeSize(dtype_) > byte_size_) {
    return absl::InvalidArgumentError(absl::StrCat("device tensor '", name_, "' has ", byte_size_,
                                                   " bytes, too few for shape ",
                                                   ShapeString(shape)));
  }
  return std::shared_ptr<DeviceTensor>(
      new DeviceTensor(*this, std::move(shape), std::move(buffer)));
}

absl::StatusOr<std::shared_ptr<const gpu::Buffer>> DeviceTensor::buffer() const {
  MutexLock lock(&mutex_);
  if (buffer_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("device tensor '", name_, "' has been released"));
  }
  return buffer_;
}

absl::StatusOr<HostTensor> DeviceTensor::Read(bool release) {
  ASSIGN_OR_RETURN(std::shared_ptr<const gpu::Buffer> buffer, this->buffer());
  HostTensor host;
  host.dtype = dtype_;
  host.shape = shape_;
  host.data.resize(byte_size_);
  RETURN_IF_ERROR(gpu::Download(*allocator_, *buffer, 0, host.data));
  if (release) Release();
  return host;
}

void DeviceTensor::Release() {
  std::shared_ptr<const gpu::Buffer> dropped;
  MutexLock lock(&mutex_);
  dropped.swap(buffer_);
  // `dropped` frees the buffer when the last run holding it lets go.
}

bool DeviceTensor::released() const {
  MutexLock lock(&mutex_);
  return buffer_ == nullptr;
}

}  // namespace vkserve
