// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/scheduling/warmup_runs.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "absl/strings/str_cat.h"
#include "base/parallel_for.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "runtime/model.h"
#include "server/scheduling/model_tensors.h"

namespace vkserve {
namespace {

namespace fs = std::filesystem;

// The file's bytes when it lies inside `dir` (after resolving links) and
// holds exactly `want` bytes.
absl::StatusOr<std::vector<uint8_t>> ReadInside(const fs::path& dir, const std::string& file,
                                                uint64_t want) {
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(dir, ec);
  const fs::path path = fs::weakly_canonical(dir / file, ec);
  if (ec) return absl::InvalidArgumentError(absl::StrCat("cannot resolve ", Quoted(file)));
  const auto [end, unused] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  if (end != root.end()) {
    return absl::InvalidArgumentError(absl::StrCat(Quoted(file), " leaves the warmup directory"));
  }
  const uint64_t size = fs::file_size(path, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read ", Quoted(file), " in ", dir.string(), ": ", ec.message()));
  }
  if (size != want) {
    return absl::InvalidArgumentError(absl::StrCat(Quoted(file), " has ", size,
                                                   " bytes; one batch element of "
                                                   "that shape and type takes ",
                                                   want));
  }
  std::vector<uint8_t> bytes(size);
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size))) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", Quoted(file)));
  }
  return bytes;
}

// One batch element of random values: floats in [0, 1), integers 0 or 1
// and booleans, so inputs used as indices or counts stay in range.
std::vector<uint8_t> RandomElement(DataType dtype, uint64_t bytes, std::mt19937& rng) {
  std::vector<uint8_t> out(bytes, 0);
  const size_t size = DataTypeSize(dtype);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (size_t at = 0; at + size <= out.size(); at += size) {
    switch (dtype) {
      case DataType::kFloat: {
        const float v = unit(rng);
        std::memcpy(&out[at], &v, sizeof(v));
        break;
      }
      case DataType::kDouble: {
        const double v = unit(rng);
        std::memcpy(&out[at], &v, sizeof(v));
        break;
      }
      case DataType::kFloat16:  // an fp16 in [0.5, 1): exponent 0x38, random mantissa
      case DataType::kBFloat16: {
        const uint16_t v = dtype == DataType::kFloat16
                               ? static_cast<uint16_t>(0x3800u | (rng() & 0x3FFu))
                               : static_cast<uint16_t>(0x3F00u | (rng() & 0x7Fu));
        std::memcpy(&out[at], &v, sizeof(v));
        break;
      }
      default:
        out[at] = static_cast<uint8_t>(rng() & 1u);  // little-endian 0 or 1
        break;
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const WarmupRuns>> WarmupRuns::Build(
    const ModelSettings& settings, const Model& model, const std::string& model_directory) {
  auto runs = std::shared_ptr<WarmupRuns>(new WarmupRuns());
  for (const auto& [name, where] : settings.output_locations) {
    if (where == PreferredLocation::kGpu) runs->output_locations_[name] = OutputLocation::kDevice;
  }
  std::mt19937 rng(20261125);
  for (const WarmupSample& s : settings.warmup) {
    Sample sample{absl::StrCat("model_warmup ", Quoted(s.name)), s.count, {}};
    for (const ValueInfo& info : model.inputs()) {
      auto in = s.inputs.find(info.name);
      if (in == s.inputs.end()) {
        return absl::InternalError(absl::StrCat("warm-up sample ", Quoted(s.name), " lacks input ",
                                                Quoted(info.name), " after validation"));
      }
      const WarmupSample::Input& w = in->second;
      Input input{info.name, FromConfigDataType(w.data_type), w.shape, {}};
      std::vector<uint8_t> element;
      if (w.fill == WarmupSample::Fill::kFile) {
        auto read = ReadInside(fs::path(model_directory) / "warmup", w.file, w.element_bytes);
        if (!read.ok()) {
          return absl::InvalidArgumentError(absl::StrCat("model_warmup ", Quoted(s.name),
                                                         ", input ", Quoted(info.name), ": ",
                                                         read.status().message()));
        }
        element = *std::move(read);
      } else if (w.fill == WarmupSample::Fill::kRandom) {
        element = RandomElement(input.dtype, w.element_bytes, rng);
      } else {
        element.assign(w.element_bytes, 0);
      }
      const int rows = settings.max_batch_size > 0 ? s.batch_size : 1;
      input.bytes.reserve(element.size() * static_cast<size_t>(rows));
      for (int r = 0; r < rows; ++r)
        input.bytes.insert(input.bytes.end(), element.begin(), element.end());
      sample.inputs.push_back(std::move(input));
    }
    runs->samples_.push_back(std::move(sample));
  }
  return std::shared_ptr<const WarmupRuns>(std::move(runs));
}

absl::StatusOr<std::shared_ptr<const WarmupRuns>> WarmupRuns::Zeros(
    const Model& model, const std::vector<std::vector<std::vector<int64_t>>>& shapes,
    const std::vector<std::string>& labels) {
  constexpr uint64_t kMaxBytes = uint64_t{1} << 30;
  auto runs = std::shared_ptr<WarmupRuns>(new WarmupRuns());
  for (size_t k = 0; k < shapes.size(); ++k) {
    Sample sample{labels[k], 1, {}};
    for (size_t i = 0; i < model.inputs().size(); ++i) {
      const ValueInfo& info = model.inputs()[i];
      uint64_t count = 1;
      for (int64_t d : shapes[k][i]) {
        count *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
        if (count > kMaxBytes) break;
      }
      const uint64_t bytes = count * DataTypeSize(info.type.dtype);
      if (count > kMaxBytes || bytes > kMaxBytes) {
        return absl::InvalidArgumentError(absl::StrCat(labels[k], ": input ", Quoted(info.name),
                                                       " would take over 1 GiB of zeros"));
      }
      sample.inputs.push_back(
          Input{info.name, info.type.dtype, shapes[k][i], std::vector<uint8_t>(bytes, 0)});
    }
    runs->samples_.push_back(std::move(sample));
  }
  return std::shared_ptr<const WarmupRuns>(std::move(runs));
}

RunRequest WarmupRuns::Request(size_t i) const {
  RunRequest run;
  for (const auto& [name, location] : output_locations_)
    run.outputs.push_back({name, location, nullptr});
  for (const Input& in : samples_[i].inputs) {
    run.inputs.push_back(InputBinding::Host(in.name, in.dtype, in.shape, in.bytes));
  }
  return run;
}

absl::Status WarmupRuns::RunOn(Session& session) const {
  for (size_t s = 0; s < samples_.size(); ++s) {
    const Sample& sample = samples_[s];
    const RunRequest run = Request(s);
    for (int i = 0; i < sample.count; ++i) {
      absl::StatusOr<RunResult> result = session.Run(run);
      if (!result.ok()) {
        return absl::Status(result.status().code(),
                            absl::StrCat(sample.label, ": ", result.status().message()));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status WarmupRuns::Plan(const Model& model) const {
  if (model.has_value_inputs() || model.sync_split() != nullptr) return absl::OkStatus();
  const std::vector<std::vector<std::vector<int64_t>>> shapes = Shapes();
  std::vector<size_t> distinct;  // the first sample of each shape
  for (size_t s = 0; s < shapes.size(); ++s) {
    if (std::find(shapes.begin(), shapes.begin() + s, shapes[s]) == shapes.begin() + s) {
      distinct.push_back(s);
    }
  }
  if (distinct.empty()) return absl::OkStatus();
  std::vector<absl::Status> planned(distinct.size());
  ParallelFor(static_cast<int>(distinct.size()),
              [&](int i) { planned[i] = model.GetPlan(shapes[distinct[i]]).status(); });
  for (size_t i = 0; i < distinct.size(); ++i) {
    if (!planned[i].ok()) {
      return absl::Status(planned[i].code(),
                          absl::StrCat(samples_[distinct[i]].label, ": ", planned[i].message()));
    }
  }
  return absl::OkStatus();
}

std::vector<std::vector<std::vector<int64_t>>> WarmupRuns::Shapes() const {
  std::vector<std::vector<std::vector<int64_t>>> shapes;
  for (const Sample& sample : samples_) {
    std::vector<std::vector<int64_t>> one;
    for (const Input& in : sample.inputs) one.push_back(in.shape);
    shapes.push_back(std::move(one));
  }
  return shapes;
}

}  // namespace vkserve
