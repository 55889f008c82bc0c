// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// `vkserve infer MODEL [--input NAME=FILE.npy]... [--output-dir DIR]
//   [--dim NAME=VALUE]... [--repeat N] [--warmup SECONDS] [--profile FILE.json]
//   [--device SEL] [--outputs-on-gpu]
//   [--precision FP32|FP16 [--accumulation FP32|FP16] [--compare]]
//   [--pipeline-statistics] [--readback view|buffers|whole] [--time-each-dispatch]`
// Runs a model once or N times (random inputs for those not given), writes
// each output to DIR (file names: output_files.h), and prints the median
// timing split.
// --compare (with --precision FP16, and --accumulation FP16 or not) also
// runs the model at FP32 precision on the same inputs and prints each float
// output's max and mean absolute error and its max error relative to the
// FP32 output's largest magnitude.
// --warmup runs the same request untimed for that long first: GPU clocks
// idle low and ramp only under load, so timings without it read 2-3x slow.
// --readback says how the host gets large outputs (1 MiB and more) that the
// GPU stages: `view` (the default) hands over the host-cached staging memory
// itself (SessionOptions::view_readback_bytes), so the GPU's copy is the
// only one; `buffers` copies them into buffers kept across runs, as the
// server copies into recycled response buffers, chunk by chunk as the GPU
// stages them; `whole` does that after the wait, in one piece.
// --time-each-dispatch puts timestamps around every dispatch of every run,
// as --profile does for its run (the A/B of what they cost; by default runs
// time only their phases).

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <random>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "cli/model_flags.h"
#include "cli/output_files.h"
#include "runtime/loaders/npy.h"
#include "runtime/op/op_util.h"
#include "runtime/session.h"

namespace vkserve {
namespace {

absl::StatusOr<HostTensor> RandomInput(const ValueInfo& info, std::mt19937& rng) {
  HostTensor t;
  t.dtype = info.type.dtype;
  for (const Dim& d : info.type.shape) t.shape.push_back(d.is_fixed() ? d.value : 1);
  const int64_t n = NumElements(t.shape);
  if (t.dtype == DataType::kFloat) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& f : v) f = dist(rng);
    return HostTensor::FromFloats(v, t.shape);
  }
  if (t.dtype == DataType::kBFloat16) {  // the high half of a float in [-1, 1)
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    t.data.resize(n * 2);
    for (int64_t i = 0; i < n; ++i) {
      const uint16_t b = static_cast<uint16_t>(std::bit_cast<uint32_t>(dist(rng)) >> 16);
      std::memcpy(t.data.data() + 2 * i, &b, 2);
    }
    return t;
  }
  if (t.dtype == DataType::kInt64 || t.dtype == DataType::kInt32) {
    std::vector<int64_t> v(n);
    for (int64_t& x : v) x = static_cast<int64_t>(rng() % 100);
    HostTensor ints = HostTensor::FromInts(v, t.shape);
    if (t.dtype == DataType::kInt64) return ints;
    t.data.resize(n * 4);
    for (int64_t i = 0; i < n; ++i) {
      const int32_t x = static_cast<int32_t>(v[i]);
      std::memcpy(t.data.data() + 4 * i, &x, 4);
    }
    return t;
  }
  const size_t size = DataTypeSize(t.dtype);
  if (size == 0) {
    return absl::UnimplementedError(absl::StrCat("cannot make a random '", info.name, "'"));
  }
  t.data.assign(n * size, 0);
  return t;
}

uint64_t Median(std::vector<uint64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Prints how far each float output of `run` is from `reference`'s.
void PrintComparison(const RunResult& run, const RunResult& reference) {
  for (size_t i = 0; i < run.outputs.size() && i < reference.outputs.size(); ++i) {
    const HostTensor& a = run.outputs[i].host;
    const HostTensor& b = reference.outputs[i].host;
    if (a.dtype != DataType::kFloat || b.dtype != DataType::kFloat || a.shape != b.shape) {
      std::printf("compare %s: not a float output of one shape, skipped\n",
                  run.outputs[i].name.c_str());
      continue;
    }
    auto floats = [](const HostTensor& t) {
      std::vector<float> v(t.data.size() / sizeof(float));
      std::memcpy(v.data(), t.data.data(), v.size() * sizeof(float));
      return v;
    };
    const std::vector<float> x = floats(a);
    const std::vector<float> y = floats(b);
    double max_abs = 0, sum_abs = 0, max_ref = 0;
    for (size_t j = 0; j < x.size(); ++j) {
      const double d = std::fabs(static_cast<double>(x[j]) - y[j]);
      max_abs = std::max(max_abs, d);
      sum_abs += d;
      max_ref = std::max(max_ref, std::fabs(static_cast<double>(y[j])));
    }
    std::printf("compare %s vs FP32: max abs %.3g  mean abs %.3g  max rel %.3g\n",
                run.outputs[i].name.c_str(), max_abs, x.empty() ? 0.0 : sum_abs / x.size(),
                max_ref > 0 ? max_abs / max_ref : 0.0);
  }
}

int InferFailed(const absl::Status& status) {
  std::fprintf(stderr, "vkserve infer: %s\n", status.ToString().c_str());
  return kExitFailure;
}

// The command's own flags (the model flags are model_flags.h's).
struct InferFlags {
  std::map<std::string, std::string> input_files;  // input name -> .npy path
  std::string output_dir, profile_path;
  int repeat = 1;
  double warmup_seconds = 0;
  bool outputs_on_gpu = false;
  bool compare = false;
  enum class Readback { kView, kBuffers, kWhole } readback = Readback::kView;
  bool time_each_dispatch = false;
};

// One tensor per model input: read from its file where given, random (fixed
// seed) otherwise. Naming an input the model lacks is an error.
absl::StatusOr<std::vector<HostTensor>> ModelInputs(const Model& model,
                                                    std::map<std::string, std::string> files) {
  std::mt19937 rng(42);
  std::vector<HostTensor> tensors;
  for (const ValueInfo& in : model.inputs()) {
    auto it = files.find(in.name);
    absl::StatusOr<HostTensor> t = it != files.end() ? ReadNpy(it->second) : RandomInput(in, rng);
    if (!t.ok()) {
      return absl::Status(
          t.status().code(),
          absl::StrCat("input '", in.name, "': ", std::string(t.status().message())));
    }
    // NumPy has no bfloat16: a '<u2' file holds its raw 16-bit words.
    if (in.type.dtype == DataType::kBFloat16 && t->dtype == DataType::kUint16) {
      t->dtype = DataType::kBFloat16;
    }
    tensors.push_back(std::move(t).value());
    if (it != files.end()) files.erase(it);
  }
  if (!files.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the model has no input named '", files.begin()->first, "'"));
  }
  return tensors;
}

// A request binding `tensors` (which must outlive it) to the model's inputs.
RunRequest MakeRequest(const Model& model, const std::vector<HostTensor>& tensors,
                       bool outputs_on_gpu) {
  RunRequest request;
  for (size_t i = 0; i < tensors.size(); ++i) {
    request.inputs.push_back(InputBinding::Host(model.inputs()[i].name, tensors[i]));
  }
  if (outputs_on_gpu) {
    for (const ValueInfo& out : model.outputs())
      request.outputs.push_back({out.name, OutputLocation::kDevice, nullptr});
  }
  return request;
}

// Each phase's time over the timed runs.
struct Timings {
  std::vector<uint64_t> upload, record, submit, gpu, wait, readback, total, compute;

  void Add(const RunTiming& t) {
    upload.push_back(t.upload_ns);
    record.push_back(t.record_ns);
    submit.push_back(t.submit_ns);
    gpu.push_back(t.gpu_ns);
    wait.push_back(t.wait_ns);
    readback.push_back(t.readback_ns);
    total.push_back(t.total_ns);
    compute.push_back(t.gpu_compute_ns);
  }

  void PrintMedians() const {
    auto ms = [](const std::vector<uint64_t>& v) { return Median(v) / 1e6; };
    std::printf(
        "timing (median of %zu run%s, ms): upload %.3f  record %.3f  submit %.3f  gpu %.3f  "
        "wait %.3f  readback %.3f  total %.3f  gpu-compute %.3f\n",
        total.size(), total.size() == 1 ? "" : "s", ms(upload), ms(record), ms(submit), ms(gpu),
        ms(wait), ms(readback), ms(total), ms(compute));
  }
};

// Runs `request` untimed for the warm-up, then `flags.repeat` times timed
// (the last one profiled when asked); returns the last run.
absl::StatusOr<RunResult> TimedRuns(Session& session, RunRequest& request, const InferFlags& flags,
                                    Timings& timings) {
  // With --readback buffers/whole, host outputs are read back into buffers
  // kept across the runs, as the server reads them into recycled response
  // buffers (output_buffer_pool.h): the readback phase then times one copy,
  // not the page faults and zero-fill of fresh memory on every run.
  const std::vector<ValueInfo>& outputs = session.model().outputs();
  std::vector<std::vector<uint8_t>> kept(outputs.size());
  if (flags.readback != InferFlags::Readback::kView) {
    for (size_t o = 0; o < outputs.size(); ++o) {
      OutputBinding& out = request.Output(outputs[o].name);
      if (out.location != OutputLocation::kHost) continue;
      out.sink = [&kept, o](const std::vector<int64_t>&, uint64_t bytes) -> OutputPieces {
        kept[o].resize(bytes);
        return {std::span<uint8_t>(kept[o])};
      };
    }
  }
  const auto warm_until =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(flags.warmup_seconds);
  while (std::chrono::steady_clock::now() < warm_until) {
    absl::StatusOr<RunResult> warm = session.Run(request);
    if (!warm.ok()) return warm.status();
  }
  absl::StatusOr<RunResult> last = absl::UnknownError("not run");
  for (int r = 0; r < flags.repeat; ++r) {
    request.profile = !flags.profile_path.empty() && r == flags.repeat - 1;
    // Drop the previous run's outputs first: a view still held would make
    // this run stage into a new buffer and re-record.
    last = absl::UnknownError("not run");
    last = session.Run(request);
    if (!last.ok()) return last.status();
    timings.Add(last->timing);
  }
  request.profile = false;
  for (OutputBinding& out : request.outputs) out.sink = nullptr;
  // The last run's outputs own their bytes (RunResult::outputs are in the
  // model's output order, as `kept`).
  for (size_t o = 0; o < last->outputs.size(); ++o) {
    RunOutput& out = last->outputs[o];
    if (out.in_sink && o < kept.size()) {
      out.host.data = std::move(kept[o]);
      out.in_sink = false;
    }
  }
  if (!flags.profile_path.empty())
    RETURN_IF_ERROR(WriteChromeTrace(last->trace, flags.profile_path));
  return last;
}

// Writes each output (read back from the GPU where it stayed there) to its
// file in `dir` (output_files.h).
absl::Status WriteOutputs(RunResult& run, const std::string& dir) {
  std::vector<std::string> names;
  for (const RunOutput& out : run.outputs) names.push_back(out.name);
  ASSIGN_OR_RETURN(std::vector<std::string> files, OutputFileNames(names));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (size_t i = 0; i < run.outputs.size(); ++i) {
    RunOutput& out = run.outputs[i];
    HostTensor host = out.host;
    if (out.device != nullptr) {
      ASSIGN_OR_RETURN(host, out.device->Read(/*release=*/true));
    }
    RETURN_IF_ERROR(WriteNpy(host, (std::filesystem::path(dir) / files[i]).string()));
  }
  return absl::OkStatus();
}

// Runs `request` on an FP32 build of the model and prints how far `run` is.
absl::Status CompareWithFp32(const ModelFlags& flags, GpuRuntime& runtime,
                             const RunRequest& request, const RunResult& run) {
  ModelOptions fp32 = flags.model;
  fp32.precision = Precision::kFp32;
  fp32.accumulation = Accumulation::kFp32;
  ASSIGN_OR_RETURN(auto reference_model, Model::Load(flags.model_path, runtime.context(), fp32));
  ASSIGN_OR_RETURN(auto reference_session, Session::Create(reference_model));
  ASSIGN_OR_RETURN(RunResult reference, reference_session->Run(request));
  std::printf("compare: %s precision, %s accumulation, against FP32 precision\n",
              flags.model.precision == Precision::kFp16 ? "FP16" : "FP32",
              flags.model.accumulation == Accumulation::kFp16 ? "FP16" : "FP32");
  PrintComparison(run, reference);
  return absl::OkStatus();
}

absl::Status Infer(const ModelFlags& model_flags, const InferFlags& flags) {
  ASSIGN_OR_RETURN(auto runtime, GpuRuntime::Create(RuntimeOptions(model_flags)));
  ASSIGN_OR_RETURN(auto model,
                   Model::Load(model_flags.model_path, runtime->context(), model_flags.model));
  SessionOptions session_options;
  if (flags.readback == InferFlags::Readback::kWhole) session_options.overlapped_readback_bytes = 0;
  if (flags.readback == InferFlags::Readback::kView)
    session_options.view_readback_bytes = uint64_t{1} << 20;
  session_options.time_each_dispatch = flags.time_each_dispatch;
  ASSIGN_OR_RETURN(auto session, Session::Create(model, session_options));
  ASSIGN_OR_RETURN(std::vector<HostTensor> tensors, ModelInputs(*model, flags.input_files));
  RunRequest request = MakeRequest(*model, tensors, flags.outputs_on_gpu);
  Timings timings;
  ASSIGN_OR_RETURN(RunResult last, TimedRuns(*session, request, flags, timings));
  if (!flags.output_dir.empty()) RETURN_IF_ERROR(WriteOutputs(last, flags.output_dir));
  for (const RunOutput& out : last.outputs) {
    std::printf("output %s: %s%s\n", out.name.c_str(), std::string(DataTypeName(out.dtype)).c_str(),
                ShapeString(out.shape).c_str());
  }
  timings.PrintMedians();
  std::printf("recordings: %zu (later runs replayed the recorded command buffer)\n",
              session->recording_count());
  if (flags.compare) RETURN_IF_ERROR(CompareWithFp32(model_flags, *runtime, request, last));
  return absl::OkStatus();
}

}  // namespace

CommandRunner AddInferCommand(CLI::App& command) {
  struct Flags {
    ModelFlags model;
    InferFlags infer;
  };
  auto flags = std::make_shared<Flags>();
  InferFlags& f = flags->infer;
  AddModelFlags(command, flags->model);
  command
      .add_option("--input",
                  "read this input from a .npy file (inputs not given are random, with a "
                  "fixed seed); repeatable")
      ->type_name("NAME=FILE.npy")
      ->check(NameEqualsValue())
      ->each([&f](const std::string& text) {
        const size_t eq = text.find('=');
        f.input_files[text.substr(0, eq)] = text.substr(eq + 1);
      })
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  command
      .add_option("--output-dir", f.output_dir,
                  "write each output of the last run to DIR/<name>.npy (names as "
                  "docs/cli.md says)")
      ->type_name("DIR");
  command.add_option("--repeat", f.repeat, "timed runs; the medians are printed")
      ->type_name("N")
      ->check(NumberBetween(1, 1e9, /*whole=*/true))
      ->capture_default_str();
  command
      .add_option("--warmup", f.warmup_seconds,
                  "run untimed for this long first: GPU clocks ramp up only under load")
      ->type_name("SECONDS")
      ->check(NumberBetween(0, 600, /*whole=*/false));
  command
      .add_option("--profile", f.profile_path,
                  "write the last run's dispatches as a Chrome trace (chrome://tracing, "
                  "Perfetto)")
      ->type_name("FILE.json");
  CLI::Option* on_gpu =
      command.add_flag("--outputs-on-gpu", f.outputs_on_gpu,
                       "keep outputs on the GPU (nothing read back in the timed runs)");
  command
      .add_flag("--compare", f.compare,
                "also run at FP32 on the same inputs and print each float output's error "
                "against it (with --precision FP16, and --accumulation FP16 or not)")
      ->excludes(on_gpu);
  command
      .add_option_function<std::string>(
          "--readback",
          [&f](const std::string& mode) {
            f.readback = mode == "buffers" ? InferFlags::Readback::kBuffers
                         : mode == "whole" ? InferFlags::Readback::kWhole
                                           : InferFlags::Readback::kView;
          },
          "how large outputs reach the host: view (the staging memory itself), buffers "
          "(copied as staged into buffers kept across runs, as the server does) or whole "
          "(copied after the wait); default view")
      ->type_name("MODE")
      ->check(CLI::IsMember({"view", "buffers", "whole"}).description(""));
  command.add_flag("--time-each-dispatch", f.time_each_dispatch,
                   "put timestamps around every dispatch of every run");
  command.footer(
      "example: vkserve infer model.onnx --input image=image.npy --output-dir out "
      "--warmup 2 --repeat 50");
  return [flags] {
    absl::Status s = Infer(flags->model, flags->infer);
    return s.ok() ? 0 : InferFailed(s);
  };
}

}  // namespace vkserve
