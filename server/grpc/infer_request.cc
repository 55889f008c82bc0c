// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/grpc/infer_request.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/quote.h"
#include "base/status_macros.h"

namespace vkserve {
namespace {

using inference::InferParameter;
using inference::ModelInferRequest;
using inference::ModelInferResponse;
using ParamMap = google::protobuf::Map<std::string, InferParameter>;

// absl::StrCat takes absl::string_view, which is not std::string_view here.
std::string KName(DataType type) { return std::string(DataTypeKServeName(type)); }

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

absl::Status InvalidInput(const std::string& tensor, const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat("input ", Quoted(tensor), ": ", message));
}

// Reads an optional string parameter; INVALID_ARGUMENT if of another type.
absl::StatusOr<std::optional<std::string>> StringParam(const ParamMap& params,
                                                       const std::string& key,
                                                       const std::string& where) {
  auto it = params.find(key);
  if (it == params.end()) return std::optional<std::string>();
  if (it->second.parameter_choice_case() != InferParameter::kStringParam) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": parameter '", key, "' must be a string"));
  }
  return std::optional<std::string>(it->second.string_param());
}

// Reads an optional integer parameter (int64 or uint64 as sent).
absl::StatusOr<std::optional<int64_t>> IntParam(const ParamMap& params, const std::string& key,
                                                const std::string& where) {
  auto it = params.find(key);
  if (it == params.end()) return std::optional<int64_t>();
  if (it->second.parameter_choice_case() == InferParameter::kInt64Param) {
    return std::optional<int64_t>(it->second.int64_param());
  }
  if (it->second.parameter_choice_case() == InferParameter::kUint64Param &&
      it->second.uint64_param() <= static_cast<uint64_t>(INT64_MAX)) {
    return std::optional<int64_t>(static_cast<int64_t>(it->second.uint64_param()));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(where, ": parameter '", key, "' must be an integer"));
}

// The shared-memory range a tensor's parameters name, if any.
absl::StatusOr<std::optional<SharedMemoryManager::Range>> ShmParams(const ParamMap& params,
                                                                    const SharedMemoryManager& shm,
                                                                    const std::string& where,
                                                                    std::string* region_name) {
  ASSIGN_OR_RETURN(auto region, StringParam(params, "shared_memory_region", where));
  ASSIGN_OR_RETURN(auto size, IntParam(params, "shared_memory_byte_size", where));
  ASSIGN_OR_RETURN(auto offset, IntParam(params, "shared_memory_offset", where));
  if (!region && !size && !offset) return std::optional<SharedMemoryManager::Range>();
  if (!region || !size) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": shared memory needs both 'shared_memory_region' and 'shared_memory_byte_size'"));
  }
  if (*size < 0 || offset.value_or(0) < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": negative shared-memory size or offset"));
  }
  if (!shm.enabled()) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": system shared memory is disabled on this server"));
  }
  auto range =
      shm.Resolve(*region, static_cast<uint64_t>(offset.value_or(0)), static_cast<uint64_t>(*size));
  if (!range.ok()) {
    return absl::Status(range.status().code(), absl::StrCat(where, ": ", range.status().message()));
  }
  *region_name = *region;
  return std::optional<SharedMemoryManager::Range>(*std::move(range));
}

// Copies the typed contents of `tensor` into `out` as dense little-endian
// bytes of `dtype`. `count` is the element count the shape implies.
template <typename Dst, typename Src>
absl::Status CopyTyped(const google::protobuf::RepeatedField<Src>& src, uint64_t count,
                       const std::string& name, std::vector<uint8_t>* out) {
  if (static_cast<uint64_t>(src.size()) != count) {
    return InvalidInput(
        name, absl::StrCat("contents hold ", src.size(), " elements but the shape needs ", count));
  }
  out->resize(count * sizeof(Dst));
  for (uint64_t i = 0; i < count; ++i) {
    const Dst v = static_cast<Dst>(src.Get(static_cast<int>(i)));
    std::memcpy(out->data() + i * sizeof(Dst), &v, sizeof(Dst));
  }
  return absl::OkStatus();
}

int TypedFieldCount(const inference::InferTensorContents& c) {
  return (c.bool_contents_size() > 0) + (c.int_contents_size() > 0) +
         (c.int64_contents_size() > 0) + (c.uint_contents_size() > 0) +
         (c.uint64_contents_size() > 0) + (c.fp32_contents_size() > 0) +
         (c.fp64_contents_size() > 0) + (c.bytes_contents_size() > 0);
}

absl::Status ConvertTyped(const inference::InferTensorContents& c, DataType dtype, uint64_t count,
                          const std::string& name, std::vector<uint8_t>* out) {
  if (TypedFieldCount(c) > 1) return InvalidInput(name, "contents use more than one typed field");
  const size_t used = static_cast<size_t>(TypedFieldCount(c));
  auto expect = [&](int size) -> absl::Status {
    if (used == 1 && size == 0) {
      return InvalidInput(
          name, absl::StrCat("contents use a field that does not match datatype ", KName(dtype)));
    }
    return absl::OkStatus();
  };
  switch (dtype) {
    case DataType::kBool:
      RETURN_IF_ERROR(expect(c.bool_contents_size()));
      return CopyTyped<uint8_t>(c.bool_contents(), count, name, out);
    case DataType::kInt8:
      RETURN_IF_ERROR(expect(c.int_contents_size()));
      return CopyTyped<int8_t>(c.int_contents(), count, name, out);
    case DataType::kInt16:
      RETURN_IF_ERROR(expect(c.int_contents_size()));
      return CopyTyped<int16_t>(c.int_contents(), count, name, out);
    case DataType::kInt32:
      RETURN_IF_ERROR(expect(c.int_contents_size()));
      return CopyTyped<int32_t>(c.int_contents(), count, name, out);
    case DataType::kInt64:
      RETURN_IF_ERROR(expect(c.int64_contents_size()));
      return CopyTyped<int64_t>(c.int64_contents(), count, name, out);
    case DataType::kUint8:
      RETURN_IF_ERROR(expect(c.uint_contents_size()));
      return CopyTyped<uint8_t>(c.uint_contents(), count, name, out);
    case DataType::kUint16:
      RETURN_IF_ERROR(expect(c.uint_contents_size()));
      return CopyTyped<uint16_t>(c.uint_contents(), count, name, out);
    case DataType::kUint32:
      RETURN_IF_ERROR(expect(c.uint_contents_size()));
      return CopyTyped<uint32_t>(c.uint_contents(), count, name, out);
    case DataType::kUint64:
      RETURN_IF_ERROR(expect(c.uint64_contents_size()));
      return CopyTyped<uint64_t>(c.uint64_contents(), count, name, out);
    case DataType::kFloat:
      RETURN_IF_ERROR(expect(c.fp32_contents_size()));
      return CopyTyped<float>(c.fp32_contents(), count, name, out);
    case DataType::kDouble:
      RETURN_IF_ERROR(expect(c.fp64_contents_size()));
      return CopyTyped<double>(c.fp64_contents(), count, name, out);
    default:
      return InvalidInput(
          name, absl::StrCat("datatype ", KName(dtype),
                             " has no typed contents field; send it in raw_input_contents"));
  }
}

// Checks the request's shape of one input against the model's declaration
// (the runtime's CheckInputShape: dtype, dimensions, size) and its batch
// dimension against the model's configuration; returns the byte size.
absl::StatusOr<uint64_t> CheckShape(const std::vector<int64_t>& shape, DataType dtype,
                                    const ValueInfo& declared, const ModelSettings& settings) {
  ASSIGN_OR_RETURN(const uint64_t bytes, CheckInputShape(declared, dtype, shape));
  if (settings.max_batch_size > 0) {
    if (shape.empty() || shape[0] < 1 || shape[0] > settings.max_batch_size) {
      return InvalidInput(declared.name,
                          absl::StrCat("batch dimension of shape ", ShapeString(shape),
                                       " must be 1..", settings.max_batch_size));
    }
  }
  return bytes;
}

}  // namespace

DataType ParseKServeDataType(std::string_view name) {
  for (int32_t v = 1; v <= 16; ++v) {
    const DataType t = static_cast<DataType>(v);
    if (!DataTypeKServeName(t).empty() && DataTypeKServeName(t) == name) return t;
  }
  return DataType::kUndefined;
}

namespace {

using InputTensor = ModelInferRequest::InferInputTensor;

// The request-level parameters: timeout and priority.
absl::Status ReadRequestParameters(const ModelInferRequest& request, PreparedInfer* prepared) {
  ASSIGN_OR_RETURN(auto timeout_us, IntParam(request.parameters(), kTimeoutParam, "request"));
  if (timeout_us) {
    if (*timeout_us < 0)
      return absl::InvalidArgumentError("request: parameter 'timeout' is negative");
    if (*timeout_us > 0) prepared->timeout = absl::Microseconds(*timeout_us);
  }
  ASSIGN_OR_RETURN(auto priority, IntParam(request.parameters(), kPriorityParam, "request"));
  if (priority) {
    if (*priority < 0)
      return absl::InvalidArgumentError("request: parameter 'priority' is negative");
    prepared->priority = static_cast<uint64_t>(*priority);
  }
  return absl::OkStatus();
}

// The model input `input` names, and its datatype parsed (CheckShape
// compares it with the model's).
absl::StatusOr<const ValueInfo*> DeclaredInput(const InputTensor& input, const ServedModel& model,
                                               DataType* dtype) {
  const std::vector<ValueInfo>& declared = model.model().inputs();
  const std::string& name = input.name();
  auto decl = std::find_if(declared.begin(), declared.end(),
                           [&](const ValueInfo& v) { return v.name == name; });
  if (decl == declared.end()) {
    std::vector<std::string> names;
    for (const ValueInfo& v : declared) names.push_back(v.name);
    return InvalidInput(name, absl::StrCat("model '", model.name(), "' has no such input (inputs: ",
                                           absl::StrJoin(names, ", "), ")"));
  }
  *dtype = ParseKServeDataType(input.datatype());
  if (*dtype == DataType::kUndefined) {
    return InvalidInput(name, absl::StrCat("unknown datatype ", Quoted(input.datatype())));
  }
  return &*decl;
}

// A GPU-resident tensor (vkserve_gpu_handle) bound without a copy; sets
// `*shape` to the tensor's.
absl::Status BindResidentInput(const InputTensor& input, const std::string& handle, DataType dtype,
                               const ValueInfo& decl, const ModelSettings& settings,
                               ResidentRegistry& resident, std::vector<int64_t>* shape,
                               InputBinding* binding) {
  const std::string& name = input.name();
  const std::string where = absl::StrCat("input ", Quoted(name));
  auto tensor = resident.Get(handle);
  if (!tensor.ok())
    return absl::NotFoundError(absl::StrCat(where, ": ", tensor.status().message()));
  if ((*tensor)->dtype() != dtype) {
    return InvalidInput(name, absl::StrCat("GPU handle holds ", KName((*tensor)->dtype()), ", not ",
                                           input.datatype()));
  }
  if (!shape->empty() && *shape != (*tensor)->shape()) {
    return InvalidInput(
        name, absl::StrCat("shape ", ShapeString(*shape), " differs from the GPU handle's ",
                           ShapeString((*tensor)->shape())));
  }
  *shape = (*tensor)->shape();
  *binding = InputBinding::Device(name, *std::move(tensor));
  RETURN_IF_ERROR(CheckShape(binding->shape, dtype, decl, settings).status());
  if (TypedFieldCount(input.contents()) > 0)
    return InvalidInput(name, "has both a GPU handle and contents");
  return absl::OkStatus();
}

// Where a host input's bytes come from (the binding's source, for its
// checked `bytes`): a shared-memory region (read during the run), the
// request's next raw_input_contents entry, or its typed contents converted
// into bytes the PreparedInfer owns.
absl::Status BindHostInputData(const ModelInferRequest& request, const InputTensor& input,
                               uint64_t bytes, const SharedMemoryManager& shm, int* raw_index,
                               PreparedInfer* prepared, InputBinding* binding) {
  const std::string& name = input.name();
  const std::string where = absl::StrCat("input ", Quoted(name));
  const DataType dtype = binding->dtype;
  const uint64_t count = bytes / DataTypeSize(dtype);
  const bool has_typed = TypedFieldCount(input.contents()) > 0;
  std::string region;
  ASSIGN_OR_RETURN(auto range, ShmParams(input.parameters(), shm, where, &region));
  if (range) {
    if (has_typed) return InvalidInput(name, "has both shared memory and contents");
    if (range->size() != bytes) {
      return InvalidInput(name, absl::StrCat("shared_memory_byte_size is ", range->size(),
                                             " but shape ", ShapeString(binding->shape), " of ",
                                             input.datatype(), " needs ", bytes));
    }
    // Read during the run, straight into GPU-visible memory: never through
    // a mapping of the client's object (server/models/shared_memory.h says why).
    binding->source =
        HostInputReader([range = *std::move(range), where](std::span<uint8_t> dst) -> absl::Status {
          absl::Status s = range.Read(dst);
          if (s.ok()) return s;
          return absl::Status(s.code(), absl::StrCat(where, ": ", s.message()));
        });
    return absl::OkStatus();
  }
  if (request.raw_input_contents_size() > 0) {
    if (has_typed) {
      return InvalidInput(
          name, "has typed contents but the request uses raw_input_contents; use one or the other");
    }
    if (*raw_index >= request.raw_input_contents_size()) {
      return InvalidInput(name, absl::StrCat("no raw_input_contents entry (the request has ",
                                             request.raw_input_contents_size(), ")"));
    }
    const std::string& raw = request.raw_input_contents((*raw_index)++);
    if (raw.size() != bytes) {
      return InvalidInput(name, absl::StrCat("raw contents hold ", raw.size(), " bytes but shape ",
                                             ShapeString(binding->shape), " of ", input.datatype(),
                                             " needs ", bytes));
    }
    binding->source = HostBytes(reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
    return absl::OkStatus();
  }
  if (!has_typed && count > 0) return InvalidInput(name, "has no data");
  prepared->owned.emplace_back();
  RETURN_IF_ERROR(ConvertTyped(input.contents(), dtype, count, name, &prepared->owned.back()));
  binding->source = HostBytes(prepared->owned.back());
  return absl::OkStatus();
}

// Every input of the request bound to the model input it names, each once,
// none missing, raw contents consumed exactly.
absl::Status BindInputs(const ModelInferRequest& request, const ServedModel& model,
                        ResidentRegistry& resident, const SharedMemoryManager& shm,
                        PreparedInfer* prepared) {
  const std::vector<ValueInfo>& declared_inputs = model.model().inputs();
  const ModelSettings& settings = model.settings();
  int raw_index = 0;
  std::set<std::string> seen;
  prepared->owned.reserve(static_cast<size_t>(request.inputs_size()));
  for (const InputTensor& input : request.inputs()) {
    const std::string& name = input.name();
    DataType dtype = DataType::kUndefined;
    ASSIGN_OR_RETURN(const ValueInfo* decl, DeclaredInput(input, model, &dtype));
    if (!seen.insert(name).second) return InvalidInput(name, "given more than once");
    std::vector<int64_t> shape(input.shape().begin(), input.shape().end());
    InputBinding binding;
    binding.name = name;
    const std::string where = absl::StrCat("input ", Quoted(name));
    ASSIGN_OR_RETURN(auto handle, StringParam(input.parameters(), kGpuHandleParam, where));
    if (handle) {
      RETURN_IF_ERROR(
          BindResidentInput(input, *handle, dtype, *decl, settings, resident, &shape, &binding));
    } else {
      ASSIGN_OR_RETURN(const uint64_t bytes, CheckShape(shape, dtype, *decl, settings));
      if (DataTypeSize(dtype) == 0) {
        return InvalidInput(name, absl::StrCat("datatype ", input.datatype(), " is not supported"));
      }
      binding.dtype = dtype;
      binding.shape = shape;
      RETURN_IF_ERROR(
          BindHostInputData(request, input, bytes, shm, &raw_index, prepared, &binding));
    }
    if (decl == &declared_inputs.front() && settings.max_batch_size > 0)
      prepared->batch_size = shape[0];
    prepared->run.inputs.push_back(std::move(binding));
  }
  if (request.raw_input_contents_size() > 0 && raw_index != request.raw_input_contents_size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the request has ", request.raw_input_contents_size(),
                     " raw_input_contents entries but ", raw_index, " inputs take raw data"));
  }
  for (const ValueInfo& v : declared_inputs) {
    if (!seen.contains(v.name)) return InvalidInput(v.name, "missing (the model needs it)");
  }
  return absl::OkStatus();
}

// One requested output: its location (config, or the request's "gpu" /
// "cpu"), and its shared-memory region if it names one.
absl::StatusOr<PreparedInfer::Output> RequestedOutput(
    const ModelInferRequest::InferRequestedOutputTensor& out, bool resident_by_config,
    const SharedMemoryManager& shm) {
  const std::string where = absl::StrCat("output ", Quoted(out.name()));
  PreparedInfer::Output o{out.name(), resident_by_config, {}, {}};
  ASSIGN_OR_RETURN(auto location, StringParam(out.parameters(), kLocationParam, where));
  if (location) {
    if (*location == "gpu")
      o.resident = true;
    else if (*location == "cpu")
      o.resident = false;
    else
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": ", kLocationParam, " must be \"gpu\" or \"cpu\""));
  }
  ASSIGN_OR_RETURN(o.shm, ShmParams(out.parameters(), shm, where, &o.shm_region));
  if (o.shm && o.resident) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": cannot be both GPU-resident and in shared memory"));
  }
  if (o.shm && !o.shm->writable()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": shared-memory region ", Quoted(o.shm_region), " is read-only"));
  }
  return o;
}

// The outputs to return: the requested subset, or all in model order.
absl::Status SelectOutputs(const ModelInferRequest& request, const ServedModel& model,
                           const SharedMemoryManager& shm, PreparedInfer* prepared) {
  const ModelSettings& settings = model.settings();
  const std::vector<ValueInfo>& declared_outputs = model.model().outputs();
  auto on_gpu = [&](const std::string& name) {
    auto it = settings.output_locations.find(name);
    return (it != settings.output_locations.end()
                ? it->second
                : settings.default_output_location) == PreferredLocation::kGpu;
  };
  if (request.outputs_size() == 0) {
    for (const ValueInfo& v : declared_outputs)
      prepared->outputs.push_back({v.name, on_gpu(v.name), {}, {}});
  }
  std::set<std::string> requested;
  for (const auto& out : request.outputs()) {
    const std::string where = absl::StrCat("output ", Quoted(out.name()));
    if (std::none_of(declared_outputs.begin(), declared_outputs.end(),
                     [&](const ValueInfo& v) { return v.name == out.name(); })) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": model '", model.name(), "' has no such output"));
    }
    if (!requested.insert(out.name()).second) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": requested more than once"));
    }
    ASSIGN_OR_RETURN(PreparedInfer::Output o, RequestedOutput(out, on_gpu(out.name()), shm));
    prepared->outputs.push_back(std::move(o));
  }
  for (const auto& o : prepared->outputs) {
    if (o.resident) prepared->run.outputs.push_back({o.name, OutputLocation::kDevice, nullptr});
  }
  return absl::OkStatus();
}

// One copy from GPU-visible memory into the response instead of one into
// RunOutput::host and another into the response. The PreparedInfer is
// heap-allocated and outlives the run (the caller keeps it until the
// response is filled), so the sinks may point into it.
void InstallOutputSink(const Model& runtime_model, PreparedInfer* prepared) {
  prepared->raw_buffers.resize(runtime_model.outputs().size());
  for (size_t o = 0; o < runtime_model.outputs().size(); ++o) {
    const std::string& name = runtime_model.outputs()[o].name;
    // A shared-memory output is read back into RunOutput::host, then
    // written to the object with pwrite (FillInferResponse): never through
    // a mapping. An output not requested stays in RunOutput::host too.
    if (std::none_of(prepared->outputs.begin(), prepared->outputs.end(),
                     [&](const PreparedInfer::Output& want) {
                       return want.name == name && !want.resident && !want.shm;
                     })) {
      continue;
    }
    prepared->run.Output(name).sink = [p = prepared, o](const std::vector<int64_t>&,
                                                        uint64_t bytes) -> OutputPieces {
      std::string& buffer = p->raw_buffers[o];
      if (p->output_buffers != nullptr) {
        if (!buffer.empty()) p->output_buffers->Give(std::move(buffer));
        buffer = p->output_buffers->Take(bytes);
      } else {
        buffer.resize(bytes);
      }
      return {std::span<uint8_t>(reinterpret_cast<uint8_t*>(buffer.data()), bytes)};
    };
  }
}

}  // namespace

PreparedInfer::~PreparedInfer() {
  if (output_buffers == nullptr) return;
  for (std::string& b : raw_buffers) output_buffers->Give(std::move(b));
}

absl::StatusOr<std::unique_ptr<PreparedInfer>> PrepareInfer(
    const ModelInferRequest& request, const ServedModel& model, ResidentRegistry& resident,
    const SharedMemoryManager& shm, std::shared_ptr<OutputBufferPool> output_buffers) {
  auto prepared = std::make_unique<PreparedInfer>();
  prepared->output_buffers = std::move(output_buffers);
  RETURN_IF_ERROR(ReadRequestParameters(request, prepared.get()));
  RETURN_IF_ERROR(BindInputs(request, model, resident, shm, prepared.get()));
  RETURN_IF_ERROR(SelectOutputs(request, model, shm, prepared.get()));
  InstallOutputSink(model.model(), prepared.get());
  return prepared;
}

absl::Status FillInferResponse(const ModelInferRequest& request, PreparedInfer& prepared,
                               RunResult& result, const ServedModel& model,
                               ResidentRegistry& resident, ModelInferResponse* response) {
  response->set_model_name(model.name());
  response->set_model_version(absl::StrCat(model.version()));
  response->set_id(request.id());
  std::vector<std::string> added;
  auto fail = [&](absl::Status s) {
    for (const std::string& h : added) (void)resident.Release(h);
    response->clear_outputs();
    response->clear_raw_output_contents();
    return s;
  };
  for (const PreparedInfer::Output& want : prepared.outputs) {
    auto it = std::find_if(result.outputs.begin(), result.outputs.end(),
                           [&](const RunOutput& o) { return o.name == want.name; });
    if (it == result.outputs.end())
      return fail(
          absl::InternalError(absl::StrCat("the run produced no output '", want.name, "'")));
    RunOutput& out = *it;
    auto* entry = response->add_outputs();
    entry->set_name(out.name);
    entry->set_datatype((KName(out.dtype)));
    for (int64_t d : out.shape) entry->add_shape(d);
    std::string* raw = response->add_raw_output_contents();
    if (want.resident) {
      if (!out.device)
        return fail(
            absl::InternalError(absl::StrCat("output '", out.name, "' was not kept on the GPU")));
      auto handle = resident.Add(out.device, model.name(), model.version());
      if (!handle.ok()) {
        return fail(absl::Status(handle.status().code(), absl::StrCat("output '", out.name, "': ",
                                                                      handle.status().message())));
      }
      added.push_back(*handle);
      (*entry->mutable_parameters())[kGpuHandleParam].set_string_param(*handle);
    } else if (want.shm) {
      const uint64_t bytes = out.host.data.size();
      if (bytes > want.shm->size()) {
        return fail(absl::InvalidArgumentError(
            absl::StrCat("output '", out.name, "': ", bytes,
                         " bytes do not fit shared_memory_byte_size ", want.shm->size())));
      }
      if (absl::Status s = want.shm->Write(out.host.data); !s.ok()) {
        return fail(absl::Status(s.code(), absl::StrCat("output '", out.name, "': ", s.message())));
      }
      auto& params = *entry->mutable_parameters();
      params["shared_memory_region"].set_string_param(want.shm_region);
      params["shared_memory_byte_size"].set_int64_param(static_cast<int64_t>(bytes));
    } else if (out.in_sink) {
      *raw = std::move(prepared.raw_buffers[static_cast<size_t>(it - result.outputs.begin())]);
    } else {
      raw->assign(reinterpret_cast<const char*>(out.host.data.data()), out.host.data.size());
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> TraceRequested(const ModelInferRequest& request) {
  auto it = request.parameters().find(kTraceParam);
  if (it == request.parameters().end()) return false;
  const InferParameter& p = it->second;
  if (p.parameter_choice_case() == InferParameter::kBoolParam) return p.bool_param();
  if (p.parameter_choice_case() == InferParameter::kStringParam &&
      (p.string_param() == "true" || p.string_param() == "false")) {
    return p.string_param() == "true";
  }
  return absl::InvalidArgumentError(absl::StrCat("request: parameter '", kTraceParam,
                                                 "' must be a bool (or \"true\"/\"false\")"));
}

bool IsHandleRequest(const ModelInferRequest& request) {
  return request.parameters().contains(kReadHandleParam) ||
         request.parameters().contains(kReleaseHandleParam);
}

absl::Status RunHandleRequest(const ModelInferRequest& request, ResidentRegistry& resident,
                              ModelInferResponse* response) {
  response->set_model_name(request.model_name());
  response->set_model_version(request.model_version());
  response->set_id(request.id());
  ASSIGN_OR_RETURN(auto read, StringParam(request.parameters(), kReadHandleParam, "request"));
  ASSIGN_OR_RETURN(auto release_list,
                   StringParam(request.parameters(), kReleaseHandleParam, "request"));
  bool release_after_read = false;
  if (auto it = request.parameters().find(kReleaseParam); it != request.parameters().end()) {
    if (it->second.parameter_choice_case() != InferParameter::kBoolParam) {
      return absl::InvalidArgumentError(
          absl::StrCat("request: parameter '", kReleaseParam, "' must be a bool"));
    }
    release_after_read = it->second.bool_param();
  }
  if (read) {
    ASSIGN_OR_RETURN(auto tensor, resident.Get(*read));
    ASSIGN_OR_RETURN(HostTensor host, tensor->Read(release_after_read));
    if (release_after_read) (void)resident.Release(*read);
    auto* entry = response->add_outputs();
    entry->set_name(tensor->name());
    entry->set_datatype((KName(host.dtype)));
    for (int64_t d : host.shape) entry->add_shape(d);
    (*entry->mutable_parameters())[kGpuHandleParam].set_string_param(*read);
    response->add_raw_output_contents()->assign(reinterpret_cast<const char*>(host.data.data()),
                                                host.data.size());
  }
  if (release_list) {
    for (absl::string_view h : absl::StrSplit(*release_list, ',', absl::SkipEmpty())) {
      RETURN_IF_ERROR(resident.Release(std::string(h)));
    }
  }
  return absl::OkStatus();
}

void RecycleOutputBuffers(inference::ModelInferResponse* response, OutputBufferPool* pool) {
  for (std::string& raw : *response->mutable_raw_output_contents()) pool->Give(std::move(raw));
}

}  // namespace vkserve
