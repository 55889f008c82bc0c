// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/batch_run.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "base/unshared_status.h"
#include "gpu/transfer.h"
#include "runtime/device_tensor.h"

namespace vkserve {
namespace {

// Bytes of a dense tensor of `shape`; shapes reaching here were bounded by
// the caller's checks, so no overflow.
uint64_t DenseBytes(DataType dtype, const std::vector<int64_t>& shape) {
  uint64_t count = 1;
  for (int64_t d : shape) count *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
  return count * DataTypeSize(dtype);
}

const InputBinding* FindInput(const RunRequest& run, const std::string& name) {
  for (const InputBinding& b : run.inputs) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

}  // namespace

bool CanPad(const std::vector<BatchMember>& members) {
  for (const BatchMember& m : members) {
    for (const InputBinding& b : m.run->inputs) {
      if (b.device != nullptr) return false;
    }
    for (const auto& [name, location] : m.run->output_locations) {
      if (location != OutputLocation::kHost) return false;
    }
  }
  return true;
}

uint64_t PaddingBytes(const std::vector<BatchMember>& members, int64_t rows) {
  int64_t total = 0;
  for (const BatchMember& m : members) total += m.batch_size;
  if (members.empty() || rows <= total) return 0;
  uint64_t bytes = 0;
  for (const InputBinding& b : members.front().run->inputs) {
    std::vector<int64_t> padding = b.host.shape;
    if (padding.empty()) continue;
    padding[0] = rows - total;
    bytes = std::max(bytes, DenseBytes(b.host.dtype, padding));
  }
  return bytes;
}

BatchRun::BatchRun(const Model& model, std::vector<BatchMember> members, int64_t rows,
                   std::shared_ptr<const std::vector<uint8_t>> zeros)
    : model_(model),
      members_(std::move(members)),
      zeros_(std::move(zeros)),
      owned_(members_.size()),
      in_sink_(members_.size()) {
  for (const BatchMember& m : members_) total_ += m.batch_size;
  padding_ = std::max<int64_t>(rows - total_, 0);
  if (padding_ > 0 &&
      (!CanPad(members_) || zeros_ == nullptr || zeros_->size() < PaddingBytes(members_, rows))) {
    std::abort();  // the caller checks first
  }
  const RunRequest& first = *members_.front().run;
  run_.output_locations = first.output_locations;
  for (const InputBinding& model_input : first.inputs) {
    InputBinding batch;
    batch.name = model_input.name;
    batch.host.dtype = model_input.device ? model_input.device->dtype() : model_input.host.dtype;
    batch.host.shape = model_input.device ? model_input.device->shape() : model_input.host.shape;
    batch.host.shape[0] = padding_;
    const uint64_t pad_bytes = DenseBytes(batch.host.dtype, batch.host.shape);
    batch.host.shape[0] = total_ + padding_;
    bool read = false, resident = false;
    for (const BatchMember& m : members_) {
      const InputBinding* mine = FindInput(*m.run, batch.name);
      batch.host.parts.push_back(mine->host.data);
      read = read || m.run->host_input_readers.contains(batch.name);
      resident = resident || mine->device != nullptr;
    }
    if (pad_bytes > 0)
      batch.host.parts.push_back(std::span<const uint8_t>(zeros_->data(), pad_bytes));
    if (resident) {
      batch.host.parts.clear();  // gathered on the GPU by Prepare()
      gather_.push_back(run_.inputs.size());
    } else if (read) {
      // Some request's bytes are read, not viewed: the batch's input is
      // read too, each request filling its own slice.
      batch.host.parts.clear();
      run_.host_input_readers[batch.name] = [this, name = batch.name](std::span<uint8_t> to) {
        uint64_t offset = 0;
        for (const BatchMember& m : members_) {
          const InputBinding* mine = FindInput(*m.run, name);
          const uint64_t bytes = DenseBytes(mine->host.dtype, mine->host.shape);
          if (offset + bytes > to.size()) {
            return absl::InternalError(absl::StrCat("input '", name, "': batch slices overrun"));
          }
          std::span<uint8_t> slice = to.subspan(offset, bytes);
          if (auto reader = m.run->host_input_readers.find(name);
              reader != m.run->host_input_readers.end()) {
            RETURN_IF_ERROR(reader->second(slice));
          } else if (bytes > 0) {
            std::memcpy(slice.data(), mine->host.data.data(), bytes);
          }
          offset += bytes;
        }
        // Padding rows (the slice's tail) are zeros, as viewed inputs' are.
        if (offset < to.size()) std::memset(to.data() + offset, 0, to.size() - offset);
        return absl::OkStatus();
      };
    }
    run_.inputs.push_back(std::move(batch));
  }
  run_.host_output_scatter = [this](size_t output, const std::vector<int64_t>& shape,
                                    uint64_t bytes) { return Scatter(output, shape, bytes); };
}

std::vector<std::span<uint8_t>> BatchRun::Scatter(size_t output, const std::vector<int64_t>& shape,
                                                  uint64_t bytes) {
  const int64_t rows = total_ + padding_;
  if (shape.empty() || shape[0] != rows || bytes % static_cast<uint64_t>(rows) != 0) {
    scatter_error_ = absl::InternalError(
        absl::StrCat("output ", output, " has shape [", absl::StrJoin(shape, ","),
                     "], without the batch dimension ", rows, " the batch needs"));
    return {};
  }
  const uint64_t row = bytes / static_cast<uint64_t>(rows);
  std::vector<std::span<uint8_t>> pieces;
  for (size_t i = 0; i < members_.size(); ++i) {
    const RunRequest& r = *members_[i].run;
    const uint64_t size = row * static_cast<uint64_t>(members_[i].batch_size);
    if (owned_[i].size() <= output) owned_[i].resize(output + 1);
    if (in_sink_[i].size() <= output) in_sink_[i].resize(output + 1, false);
    uint8_t* to = r.host_output_sink ? r.host_output_sink(output, size) : nullptr;
    in_sink_[i][output] = to != nullptr;
    if (to == nullptr) {
      owned_[i][output].resize(size);
      to = owned_[i][output].data();
    }
    pieces.emplace_back(to, size);
  }
  // The padding rows' outputs: skipped (a null piece), never copied.
  if (padding_ > 0)
    pieces.emplace_back(static_cast<uint8_t*>(nullptr), row * static_cast<uint64_t>(padding_));
  return pieces;
}

absl::Status BatchRun::Prepare() {
  for (size_t i : gather_) RETURN_IF_ERROR(Gather(run_.inputs[i]));
  return absl::OkStatus();
}

absl::Status BatchRun::Gather(InputBinding& batch) {
  gpu::Allocator& allocator = *model_.gpu().allocator;
  const uint64_t total = DenseBytes(batch.host.dtype, batch.host.shape);
  ASSIGN_OR_RETURN(gpu::Buffer gathered,
                   allocator.Allocate(std::max<uint64_t>(total, 4), gpu::MemoryUsage::kDeviceLocal,
                                      gpu::MemoryKind::kIo));
  std::vector<gpu::RangeCopy> copies;
  std::vector<std::shared_ptr<const gpu::Buffer>> sources;  // alive until the copies ran
  uint64_t offset = 0;
  for (const BatchMember& m : members_) {
    const InputBinding* mine = FindInput(*m.run, batch.name);
    if (mine->device != nullptr) {
      const uint64_t bytes = mine->device->byte_size();
      ASSIGN_OR_RETURN(std::shared_ptr<const gpu::Buffer> source, mine->device->buffer());
      if (bytes > 0) copies.push_back({source->range(0, bytes), gathered.range(offset, bytes)});
      sources.push_back(std::move(source));
      offset += bytes;
      continue;
    }
    const uint64_t bytes = DenseBytes(mine->host.dtype, mine->host.shape);
    if (auto reader = m.run->host_input_readers.find(batch.name);
        reader != m.run->host_input_readers.end()) {
      std::vector<uint8_t> read(bytes);
      RETURN_IF_ERROR(reader->second(read));
      RETURN_IF_ERROR(gpu::Upload(allocator, gathered, offset, read));
    } else {
      RETURN_IF_ERROR(gpu::Upload(allocator, gathered, offset, mine->host.data));
    }
    offset += bytes;
  }
  RETURN_IF_ERROR(gpu::CopyOnGpu(*model_.gpu().device, copies));
  batch.device = std::make_shared<DeviceTensor>(batch.name, batch.host.dtype, batch.host.shape,
                                                std::move(gathered), model_.gpu());
  batch.host = HostTensorView();
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::vector<std::shared_ptr<DeviceTensor>>>> BatchRun::SliceResident(
    const RunResult& result) {
  gpu::Allocator& allocator = *model_.gpu().allocator;
  std::vector<std::vector<std::shared_ptr<DeviceTensor>>> slices(
      members_.size(), std::vector<std::shared_ptr<DeviceTensor>>(result.outputs.size()));
  std::vector<gpu::RangeCopy> copies;
  std::vector<std::vector<gpu::Buffer>> buffers(members_.size());
  std::vector<std::shared_ptr<const gpu::Buffer>> sources;
  for (size_t o = 0; o < result.outputs.size(); ++o) {
    const RunOutput& all = result.outputs[o];
    if (all.device == nullptr) continue;
    if (all.shape.empty() || all.shape[0] != total_ ||
        all.device->byte_size() % static_cast<uint64_t>(total_) != 0) {
      return absl::InternalError(
          absl::StrCat("output '", all.name, "' has shape [", absl::StrJoin(all.shape, ","),
                       "], without the batch dimension ", total_, " the batch needs"));
    }
    ASSIGN_OR_RETURN(std::shared_ptr<const gpu::Buffer> source, all.device->buffer());
    const uint64_t row = all.device->byte_size() / static_cast<uint64_t>(total_);
    uint64_t offset = 0;
    for (size_t i = 0; i < members_.size(); ++i) {
      const uint64_t bytes = row * static_cast<uint64_t>(members_[i].batch_size);
      ASSIGN_OR_RETURN(gpu::Buffer mine, allocator.Allocate(std::max<uint64_t>(bytes, 4),
                                                            gpu::MemoryUsage::kDeviceLocal,
                                                            gpu::MemoryKind::kResident));
      if (bytes > 0) copies.push_back({source->range(offset, bytes), mine.range(0, bytes)});
      offset += bytes;
      buffers[i].push_back(std::move(mine));
    }
    sources.push_back(std::move(source));
  }
  RETURN_IF_ERROR(gpu::CopyOnGpu(*model_.gpu().device, copies));
  for (size_t i = 0; i < members_.size(); ++i) {
    size_t next = 0;
    for (size_t o = 0; o < result.outputs.size(); ++o) {
      const RunOutput& all = result.outputs[o];
      if (all.device == nullptr) continue;
      std::vector<int64_t> shape = all.shape;
      shape[0] = members_[i].batch_size;
      slices[i][o] = std::make_shared<DeviceTensor>(all.name, all.dtype, std::move(shape),
                                                    std::move(buffers[i][next++]), model_.gpu());
    }
  }
  return slices;
}

std::vector<absl::StatusOr<RunResult>> BatchRun::Split(absl::StatusOr<RunResult> result) {
  if (result.ok() && !scatter_error_.ok()) result = scatter_error_;
  std::vector<std::vector<std::shared_ptr<DeviceTensor>>> resident;
  if (result.ok()) {
    auto sliced = SliceResident(*result);
    if (sliced.ok()) {
      resident = *std::move(sliced);
    } else {
      result = sliced.status();
    }
  }
  std::vector<absl::StatusOr<RunResult>> shares;
  for (size_t i = 0; i < members_.size(); ++i) {
    if (!result.ok()) {
      shares.push_back(UnsharedCopy(result.status()));
      continue;
    }
    RunResult mine;
    mine.timing = result->timing;
    for (size_t o = 0; o < result->outputs.size(); ++o) {
      const RunOutput& all = result->outputs[o];
      RunOutput out;
      out.name = all.name;
      out.dtype = all.dtype;
      out.shape = all.shape;
      if (!out.shape.empty()) out.shape[0] = members_[i].batch_size;
      out.host.dtype = out.dtype;
      out.host.shape = out.shape;
      const bool scattered = all.in_sink;  // else an empty output: nothing to slice
      if (all.device != nullptr) {
        out.device = std::move(resident[i][o]);
      } else if (scattered && o < in_sink_[i].size() && in_sink_[i][o]) {
        out.in_sink = true;
      } else if (scattered && o < owned_[i].size()) {
        out.host.data = std::move(owned_[i][o]);
      }
      mine.outputs.push_back(std::move(out));
    }
    shares.push_back(std::move(mine));
  }
  return shares;
}

}  // namespace vkserve
