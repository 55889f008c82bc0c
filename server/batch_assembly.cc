// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/batch_assembly.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gpu/status_macros.h"

namespace vkserve {
namespace {

// Bytes of a dense tensor of `shape`; shapes reaching here were bounded by
// request validation (server/infer_request.cc), so no overflow.
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

std::optional<std::string> BatchKey(const SchedulerRequest& request) {
  const RunRequest& run = request.run;
  if (request.batch_size < 1 || run.profile) return std::nullopt;
  for (const auto& [name, location] : run.output_locations) {
    if (location != OutputLocation::kHost) return std::nullopt;
  }
  std::map<std::string, std::string> parts;  // by name: a stable order
  for (const InputBinding& b : run.inputs) {
    const HostTensorView& h = b.host;
    if (b.device != nullptr || h.shape.empty() || h.shape[0] != request.batch_size ||
        !h.parts.empty()) {
      return std::nullopt;
    }
    for (int64_t d : h.shape) {
      if (d < 0) return std::nullopt;
    }
    if (!run.host_input_readers.contains(b.name) && h.data.size() != DenseBytes(h.dtype, h.shape)) {
      return std::nullopt;
    }
    std::vector<int64_t> rest(h.shape.begin() + 1, h.shape.end());
    // Length-prefixed: a client's input name cannot forge another key.
    if (!parts.emplace(b.name, absl::StrCat(b.name.size(), ":", b.name, "/",
                                            static_cast<int>(h.dtype), "/",
                                            absl::StrJoin(rest, ",")))
             .second) {
      return std::nullopt;  // bound twice: the run alone reports it
    }
  }
  std::string key;
  for (const auto& [name, part] : parts) absl::StrAppend(&key, part, ";");
  return key;
}

BatchRun::BatchRun(std::vector<const SchedulerRequest*> requests)
    : requests_(std::move(requests)), owned_(requests_.size()), in_sink_(requests_.size()) {
  for (const SchedulerRequest* r : requests_) total_ += r->batch_size;
  const RunRequest& first = requests_.front()->run;
  for (const InputBinding& model_input : first.inputs) {
    InputBinding batch;
    batch.name = model_input.name;
    batch.host.dtype = model_input.host.dtype;
    batch.host.shape = model_input.host.shape;
    batch.host.shape[0] = total_;
    bool read = false;
    for (const SchedulerRequest* r : requests_) {
      const InputBinding* mine = FindInput(r->run, batch.name);
      batch.host.parts.push_back(mine->host.data);
      read = read || r->run.host_input_readers.contains(batch.name);
    }
    if (read) {
      // Some request's bytes are read, not viewed: the batch's input is
      // read too, each request filling its own slice.
      batch.host.parts.clear();
      run_.host_input_readers[batch.name] = [this, name = batch.name](std::span<uint8_t> to) {
        uint64_t offset = 0;
        for (const SchedulerRequest* r : requests_) {
          const InputBinding* mine = FindInput(r->run, name);
          const uint64_t bytes = DenseBytes(mine->host.dtype, mine->host.shape);
          if (offset + bytes > to.size()) {
            return absl::InternalError(absl::StrCat("input '", name, "': batch slices overrun"));
          }
          std::span<uint8_t> slice = to.subspan(offset, bytes);
          if (auto reader = r->run.host_input_readers.find(name);
              reader != r->run.host_input_readers.end()) {
            RETURN_IF_ERROR(reader->second(slice));
          } else if (bytes > 0) {
            std::memcpy(slice.data(), mine->host.data.data(), bytes);
          }
          offset += bytes;
        }
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
  if (shape.empty() || shape[0] != total_ || bytes % static_cast<uint64_t>(total_) != 0) {
    scatter_error_ = absl::InternalError(absl::StrCat(
        "output ", output, " has shape [", absl::StrJoin(shape, ","),
        "], without the batch dimension ", total_, " the batch needs"));
    return {};
  }
  const uint64_t row = bytes / static_cast<uint64_t>(total_);
  std::vector<std::span<uint8_t>> pieces;
  for (size_t i = 0; i < requests_.size(); ++i) {
    const SchedulerRequest& r = *requests_[i];
    const uint64_t size = row * static_cast<uint64_t>(r.batch_size);
    if (owned_[i].size() <= output) owned_[i].resize(output + 1);
    if (in_sink_[i].size() <= output) in_sink_[i].resize(output + 1, false);
    uint8_t* to = r.run.host_output_sink ? r.run.host_output_sink(output, size) : nullptr;
    in_sink_[i][output] = to != nullptr;
    if (to == nullptr) {
      owned_[i][output].resize(size);
      to = owned_[i][output].data();
    }
    pieces.emplace_back(to, size);
  }
  return pieces;
}

std::vector<absl::StatusOr<RunResult>> BatchRun::Split(absl::StatusOr<RunResult> result) {
  if (result.ok() && !scatter_error_.ok()) result = scatter_error_;
  std::vector<absl::StatusOr<RunResult>> shares;
  for (size_t i = 0; i < requests_.size(); ++i) {
    if (!result.ok()) {
      shares.push_back(result.status());
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
      if (!out.shape.empty()) out.shape[0] = requests_[i]->batch_size;
      out.host.dtype = out.dtype;
      out.host.shape = out.shape;
      const bool scattered = all.in_sink;  // else an empty output: nothing to slice
      if (scattered && o < in_sink_[i].size() && in_sink_[i][o]) {
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
