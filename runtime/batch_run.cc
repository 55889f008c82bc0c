// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/batch_run.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <variant>

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

}  // namespace

bool CanPad(const std::vector<BatchMember>& members) {
  for (const BatchMember& m : members) {
    for (const InputBinding& b : m.run->inputs) {
      if (!b.on_host()) return false;
    }
    for (const OutputBinding& out : m.run->outputs) {
      if (out.location != OutputLocation::kHost) return false;
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
    std::vector<int64_t> padding = b.shape;
    if (padding.empty()) continue;
    padding[0] = rows - total;
    bytes = std::max(bytes, DenseBytes(b.dtype, padding));
  }
  return bytes;
}

std::vector<std::vector<int64_t>> BatchShapes(const Model& model, const RunRequest& member,
                                              int64_t rows) {
  std::vector<std::vector<int64_t>> shapes;
  for (const ValueInfo& input : model.inputs()) {
    const InputBinding* bound = member.FindInput(input.name);
    if (bound == nullptr || bound->shape.empty()) return {};  // the run reports it
    shapes.push_back(bound->shape);
    shapes.back()[0] = rows;
  }
  return shapes;
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
  for (const InputBinding& first_input : first.inputs) {
    run_.inputs.push_back(BatchInput(first_input));
  }
  // Where the first request keeps an output, the batch keeps it; host
  // outputs are scattered into every request's destinations.
  for (size_t o = 0; o < model_.outputs().size(); ++o) {
    const std::string& name = model_.outputs()[o].name;
    const OutputBinding* mine = first.FindOutput(name);
    if (mine != nullptr && mine->location != OutputLocation::kHost) {
      run_.outputs.push_back({name, mine->location, nullptr});
      continue;
    }
    run_.outputs.push_back(
        {name, OutputLocation::kHost, [this, o](const std::vector<int64_t>& shape, uint64_t bytes) {
           return Scatter(o, shape, bytes);
         }});
  }
}

InputBinding BatchRun::BatchInput(const InputBinding& first) {
  std::vector<int64_t> shape = first.shape;
  shape[0] = padding_;
  const uint64_t pad_bytes = DenseBytes(first.dtype, shape);
  shape[0] = total_ + padding_;
  HostPieces pieces;
  bool read = false, resident = false;
  for (const BatchMember& m : members_) {
    const InputSource& mine = m.run->FindInput(first.name)->source;
    if (const auto* bytes = std::get_if<HostBytes>(&mine)) pieces.push_back(*bytes);
    if (const auto* more = std::get_if<HostPieces>(&mine))
      pieces.insert(pieces.end(), more->begin(), more->end());
    read = read || std::holds_alternative<HostInputReader>(mine);
    resident = resident || std::holds_alternative<DeviceInput>(mine);
  }
  if (pad_bytes > 0) pieces.emplace_back(zeros_->data(), pad_bytes);
  if (resident) {
    // Gathered on the GPU by Prepare(); until then no bytes, which no run takes.
    gather_.push_back(run_.inputs.size());
    return InputBinding::Pieces(first.name, first.dtype, std::move(shape), {});
  }
  if (!read)
    return InputBinding::Pieces(first.name, first.dtype, std::move(shape), std::move(pieces));
  // Some request's bytes are read, not viewed: the batch's input is read
  // too, each request filling its own slice.
  return InputBinding::Read(
      first.name, first.dtype, std::move(shape),
      [this, name = first.name](std::span<uint8_t> to) -> absl::Status {
        uint64_t offset = 0;
        for (const BatchMember& m : members_) {
          const InputBinding& mine = *m.run->FindInput(name);
          const uint64_t bytes = DenseBytes(mine.dtype, mine.shape);
          if (offset + bytes > to.size()) {
            return absl::InternalError(absl::StrCat("input '", name, "': batch slices overrun"));
          }
          RETURN_IF_ERROR(CopyHostInput(mine, to.subspan(offset, bytes)));
          offset += bytes;
        }
        // Padding rows (the slice's tail) are zeros, as viewed inputs' are.
        if (offset < to.size()) std::memset(to.data() + offset, 0, to.size() - offset);
        return absl::OkStatus();
      });
}

OutputPieces BatchRun::Scatter(size_t output, const std::vector<int64_t>& shape, uint64_t bytes) {
  const int64_t rows = total_ + padding_;
  if (shape.empty() || shape[0] != rows || bytes % static_cast<uint64_t>(rows) != 0) {
    scatter_error_ = absl::InternalError(
        absl::StrCat("output ", output, " has shape [", absl::StrJoin(shape, ","),
                     "], without the batch dimension ", rows, " the batch needs"));
    return {};
  }
  const uint64_t row = bytes / static_cast<uint64_t>(rows);
  const std::string& name = model_.outputs()[output].name;
  OutputPieces pieces;
  for (size_t i = 0; i < members_.size(); ++i) {
    std::vector<int64_t> mine_shape = shape;
    mine_shape[0] = members_[i].batch_size;
    const uint64_t size = row * static_cast<uint64_t>(members_[i].batch_size);
    if (owned_[i].size() <= output) owned_[i].resize(output + 1);
    if (in_sink_[i].size() <= output) in_sink_[i].resize(output + 1, false);
    const OutputBinding* mine = members_[i].run->FindOutput(name);
    OutputPieces given;
    if (mine != nullptr && mine->sink) given = mine->sink(mine_shape, size);
    uint64_t given_bytes = 0;
    for (std::span<uint8_t> piece : given) given_bytes += piece.size();
    if (!given.empty() && given_bytes != size) {
      scatter_error_ = absl::InternalError(absl::StrCat(
          "output '", name, "': a request's sink gave ", given_bytes, " bytes for ", size));
      return {};
    }
    in_sink_[i][output] = !given.empty();
    if (given.empty()) {
      owned_[i][output].resize(size);
      given.emplace_back(owned_[i][output].data(), size);
    }
    pieces.insert(pieces.end(), given.begin(), given.end());
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
  const uint64_t total = DenseBytes(batch.dtype, batch.shape);
  ASSIGN_OR_RETURN(gpu::Buffer gathered,
                   allocator.Allocate(std::max<uint64_t>(total, 4), gpu::MemoryUsage::kDeviceLocal,
                                      gpu::MemoryKind::kIo));
  std::vector<gpu::RangeCopy> copies;
  std::vector<std::shared_ptr<const gpu::Buffer>> sources;  // alive until the copies ran
  uint64_t offset = 0;
  for (const BatchMember& m : members_) {
    const InputBinding& mine = *m.run->FindInput(batch.name);
    if (const DeviceTensor* tensor = mine.device()) {
      const uint64_t bytes = tensor->byte_size();
      ASSIGN_OR_RETURN(std::shared_ptr<const gpu::Buffer> source, tensor->buffer());
      if (bytes > 0) copies.push_back({source->range(0, bytes), gathered.range(offset, bytes)});
      sources.push_back(std::move(source));
      offset += bytes;
      continue;
    }
    const uint64_t bytes = DenseBytes(mine.dtype, mine.shape);
    if (const auto* viewed = std::get_if<HostBytes>(&mine.source)) {
      RETURN_IF_ERROR(gpu::Upload(allocator, gathered, offset, *viewed));
    } else {
      std::vector<uint8_t> read(bytes);
      RETURN_IF_ERROR(CopyHostInput(mine, read));
      RETURN_IF_ERROR(gpu::Upload(allocator, gathered, offset, read));
    }
    offset += bytes;
  }
  RETURN_IF_ERROR(gpu::CopyOnGpu(*model_.gpu().device, copies));
  batch = InputBinding::Device(batch.name,
                               std::make_shared<DeviceTensor>(batch.name, batch.dtype, batch.shape,
                                                              std::move(gathered), model_.gpu()));
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
