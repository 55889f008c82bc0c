// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "config/model_warmup.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/quote.h"
#include "base/status_macros.h"

namespace vkserve {
namespace {

using inference::ModelConfig;
using inference::ModelWarmup;

// Bytes per element of a type a warm-up can fill; 0 for the others.
uint64_t ElementBytes(inference::DataType type) {
  switch (type) {
    case inference::TYPE_BOOL:
    case inference::TYPE_UINT8:
    case inference::TYPE_INT8:
      return 1;
    case inference::TYPE_UINT16:
    case inference::TYPE_INT16:
    case inference::TYPE_FP16:
    case inference::TYPE_BF16:
      return 2;
    case inference::TYPE_UINT32:
    case inference::TYPE_INT32:
    case inference::TYPE_FP32:
      return 4;
    case inference::TYPE_UINT64:
    case inference::TYPE_INT64:
    case inference::TYPE_FP64:
      return 8;
    default:
      return 0;
  }
}

FieldPath SampleAt(int i) { return {{"model_warmup", i}}; }

FieldPath InputsAt(int i) { return {{"model_warmup", i}, {"inputs"}}; }

// A file name inside the warmup directory: relative, no "..", not empty.
bool StaysInside(const std::string& file) {
  if (file.empty() || file.find('\0') != std::string::npos) return false;
  const std::filesystem::path p(file);
  if (p.is_absolute() || p.has_root_name() || p.has_root_directory()) return false;
  return std::none_of(p.begin(), p.end(),
                      [](const std::filesystem::path& part) { return part == ".."; });
}

absl::Status CheckInputText(const ConfigSource& src, int i, const std::string& name,
                            const ModelWarmup::Input& in, int batch_rows, uint64_t* bytes) {
  const FieldPath at = InputsAt(i);
  const std::string what = absl::StrCat("input ", Quoted(name, '"'), ": ");
  if (in.data_type() == inference::TYPE_INVALID) {
    return src.Error(at, what + "data_type must be set (e.g. TYPE_FP32)");
  }
  const uint64_t element = ElementBytes(in.data_type());
  if (element == 0) {
    return src.Error(at, absl::StrCat(what, inference::DataType_Name(in.data_type()),
                                      " cannot be warmed up (vkserve does not serve it)"));
  }
  uint64_t elements = static_cast<uint64_t>(batch_rows);
  for (int j = 0; j < in.dims_size(); ++j) {
    const int64_t d = in.dims(j);
    if (d < 0) {
      return src.Error(at, absl::StrCat(what, "dims[", j, "] is ", d,
                                        "; a warm-up request needs concrete sizes"));
    }
    if (d > 0 && elements > kMaxWarmupBytes / static_cast<uint64_t>(d)) {
      elements = kMaxWarmupBytes + 1;
    } else {
      elements *= static_cast<uint64_t>(d);
    }
  }
  switch (in.input_data_type_case()) {
    case ModelWarmup::Input::kZeroData:
    case ModelWarmup::Input::kRandomData:
      break;
    case ModelWarmup::Input::kInputDataFile:
      if (!StaysInside(in.input_data_file())) {
        return src.Error(at,
                         absl::StrCat(what, "input_data_file ", Quoted(in.input_data_file(), '"'),
                                      " must be a relative path inside the model's warmup "
                                      "directory"));
      }
      break;
    default:
      return src.Error(at, what + "needs zero_data, random_data or input_data_file");
  }
  *bytes += std::min(elements, kMaxWarmupBytes + 1) * element;
  return absl::OkStatus();
}

absl::Status CheckSampleText(const ConfigSource& src, int i, const ModelWarmup& w,
                             int max_batch_size) {
  if (w.batch_size() < 1)
    return src.Error(FieldPath{{"model_warmup", i}, {"batch_size"}}, "must be at least 1");
  if (max_batch_size == 0 && w.batch_size() != 1) {
    return src.Error(FieldPath{{"model_warmup", i}, {"batch_size"}},
                     absl::StrCat("is ", w.batch_size(),
                                  " but the model has no batch dimension "
                                  "(max_batch_size 0): it must be 1"));
  }
  if (max_batch_size > 0 && w.batch_size() > static_cast<uint32_t>(max_batch_size)) {
    return src.Error(
        FieldPath{{"model_warmup", i}, {"batch_size"}},
        absl::StrCat("is ", w.batch_size(), ", above max_batch_size ", max_batch_size));
  }
  if (w.count() > static_cast<uint32_t>(kMaxWarmupCount)) {
    return src.Error(FieldPath{{"model_warmup", i}, {"count"}},
                     absl::StrCat("is ", w.count(), "; at most ", kMaxWarmupCount));
  }
  if (w.inputs().empty()) return src.Error(InputsAt(i), "lists no inputs; list every model input");
  uint64_t bytes = 0;
  std::set<std::string> names;
  for (const ModelWarmup::InputsEntry& entry : w.inputs()) {
    if (!names.insert(entry.key()).second) {
      return src.Error(InputsAt(i),
                       absl::StrCat("input ", Quoted(entry.key(), '"'), " is listed twice"));
    }
    RETURN_IF_ERROR(CheckInputText(src, i, entry.key(), entry.value(),
                                   static_cast<int>(w.batch_size()), &bytes));
  }
  if (bytes > kMaxWarmupBytes) {
    return src.Error(SampleAt(i),
                     absl::StrCat("its inputs take more than ", kMaxWarmupBytes >> 20, " MiB"));
  }
  return absl::OkStatus();
}

// `in`'s dims against the model tensor (the batch dimension left out when
// max_batch_size > 0): the rank and every fixed size.
absl::Status CheckInputShape(const ConfigSource& src, int i, const std::string& name,
                             const ModelWarmup::Input& in, const ModelTensor& tensor,
                             int max_batch_size) {
  if (!tensor.has_shape) return absl::OkStatus();
  const size_t skip = max_batch_size > 0 ? 1 : 0;
  if (static_cast<size_t>(in.dims_size()) + skip != tensor.dims.size()) {
    return src.Error(InputsAt(i),
                     absl::StrCat("input ", Quoted(name, '"'), ": has ", in.dims_size(),
                                  " dimensions but the model declares ", ShapeString(tensor),
                                  skip ? " (dims leave out the batch dimension)" : ""));
  }
  for (int j = 0; j < in.dims_size(); ++j) {
    const ModelDim& d = tensor.dims[static_cast<size_t>(j) + skip];
    if (d.is_fixed() && d.size != in.dims(j)) {
      return src.Error(InputsAt(i),
                       absl::StrCat("input ", Quoted(name, '"'), ": dims[", j, "] is ", in.dims(j),
                                    " but the model file fixes it at ", d.size));
    }
  }
  return absl::OkStatus();
}

WarmupSample::Input Translate(const ModelWarmup::Input& in, int batch_size, int max_batch_size) {
  WarmupSample::Input out;
  out.data_type = in.data_type();
  if (max_batch_size > 0) out.shape.push_back(batch_size);
  out.shape.insert(out.shape.end(), in.dims().begin(), in.dims().end());
  uint64_t elements = 1;
  for (int64_t d : in.dims()) elements *= static_cast<uint64_t>(d);
  out.element_bytes = elements * ElementBytes(in.data_type());
  switch (in.input_data_type_case()) {
    case ModelWarmup::Input::kRandomData:
      out.fill = WarmupSample::Fill::kRandom;
      break;
    case ModelWarmup::Input::kInputDataFile:
      out.fill = WarmupSample::Fill::kFile;
      out.file = in.input_data_file();
      break;
    default:
      out.fill = WarmupSample::Fill::kZero;
      break;
  }
  return out;
}

}  // namespace

absl::Status CheckWarmupText(const ConfigSource& src, const ModelConfig& config) {
  for (int i = 0; i < config.model_warmup_size(); ++i) {
    RETURN_IF_ERROR(CheckSampleText(src, i, config.model_warmup(i), config.max_batch_size()));
  }
  return absl::OkStatus();
}

absl::Status CheckWarmupInputs(const ConfigSource& src, const ModelConfig& config,
                               const std::vector<ModelTensor>& inputs,
                               std::vector<WarmupSample>* samples) {
  samples->clear();
  for (int i = 0; i < config.model_warmup_size(); ++i) {
    const ModelWarmup& w = config.model_warmup(i);
    WarmupSample sample;
    sample.name = w.name().empty() ? absl::StrCat("model_warmup[", i, "]") : w.name();
    sample.batch_size = static_cast<int>(w.batch_size());
    sample.count = std::max(1, static_cast<int>(w.count()));
    for (const ModelWarmup::InputsEntry& listed : w.inputs()) {
      const std::string& name = listed.key();
      const ModelWarmup::Input& in = listed.value();
      auto tensor = std::find_if(inputs.begin(), inputs.end(),
                                 [&](const ModelTensor& t) { return t.name == name; });
      auto entry = std::find_if(config.input().begin(), config.input().end(),
                                [&](const inference::ModelInput& c) { return c.name() == name; });
      if (tensor == inputs.end() || entry == config.input().end()) {
        std::vector<std::string> names;
        for (const ModelTensor& t : inputs) names.push_back(t.name);
        return src.Error(InputsAt(i), absl::StrCat("the model has no input ", Quoted(name, '"'),
                                                   " (inputs: ", absl::StrJoin(names, ", "), ")"));
      }
      if (in.data_type() != entry->data_type()) {
        return src.Error(InputsAt(i), absl::StrCat("input ", Quoted(name, '"'), ": data_type is ",
                                                   inference::DataType_Name(in.data_type()),
                                                   " but the input is ",
                                                   inference::DataType_Name(entry->data_type())));
      }
      RETURN_IF_ERROR(CheckInputShape(src, i, name, in, *tensor, config.max_batch_size()));
      sample.inputs.emplace(name, Translate(in, sample.batch_size, config.max_batch_size()));
    }
    for (const ModelTensor& t : inputs) {
      if (!sample.inputs.count(t.name)) {
        return src.Error(InputsAt(i),
                         absl::StrCat("model input ", Quoted(t.name, '"'),
                                      " is not listed; a warm-up sample lists every input"));
      }
    }
    samples->push_back(std::move(sample));
  }
  return absl::OkStatus();
}

}  // namespace vkserve
