// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// `vkserve inspect MODEL [--json] [model flags: model_flags.h]`: loads and
// plans a model and shows its inputs and outputs, op counts, where
// every node runs, the planned activation arena against the sum of all
// tensor sizes, and the graph passes the load ran: what each changed and
// its time.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/command.h"
#include "cli/json_writer.h"
#include "cli/model_flags.h"

namespace vkserve {
namespace {

std::string TypeString(const TensorType& t) {
  std::vector<std::string> dims;
  for (const Dim& d : t.shape) {
    dims.push_back(d.is_fixed() ? absl::StrCat(d.value) : (d.param.empty() ? "?" : d.param));
  }
  return absl::StrCat(std::string(DataTypeName(t.dtype)), "[", absl::StrJoin(dims, ","), "]");
}

std::string FormatString(const ModelReport& r) {
  return r.format == "ort" ? absl::StrCat("ONNX Runtime ORT format, version ", r.ort_format_version)
                           : "ONNX";
}

std::string StoredOpString(const StoredNode& n) {
  std::string s = absl::StrCat(n.op_type, " (", n.domain);
  if (n.since_version > 0) absl::StrAppend(&s, ", since_version ", n.since_version);
  return absl::StrCat(s, ")");
}

// What one pass changed: its own count, and the main graph's node count
// when that moved.
std::string PassChanges(const PassRecord& p) {
  if (p.state != PassRecord::State::kRan) return "";
  std::string s = absl::StrCat(p.changes, " change", p.changes == 1 ? "" : "s");
  if (p.nodes_after != p.nodes_before)
    absl::StrAppend(&s, ", nodes ", p.nodes_before, " -> ", p.nodes_after);
  if (p.subgraphs_changed > 0) absl::StrAppend(&s, ", in ", p.subgraphs_changed, " subgraph(s)");
  if (p.shape_inferences > 0) absl::StrAppend(&s, "; shapes inferred ", p.shape_inferences, "x");
  return s;
}

void PrintPasses(const ModelReport& r) {
  std::printf("\ngraph passes at load, in order:\n");
  for (const PassRecord& p : r.passes) {
    const std::string time = p.state == PassRecord::State::kRan
                                 ? absl::StrFormat("%.3f ms", p.seconds * 1e3)
                                 : std::string();
    const std::string name = p.part.empty() ? p.name : absl::StrCat(p.name, " (", p.part, ")");
    const std::string line =
        absl::StrFormat("  %-28s %-10s %-10s %-12s %s", name, PassLevelName(p.level),
                        PassStateName(p.state), time, PassChanges(p));
    std::printf("%s\n", std::string(absl::StripTrailingAsciiWhitespace(line)).c_str());
  }
}

// Where fp16 sums were asked for (--accumulation FP16), one line: how many
// GEMMs got them and why the others sum in fp32, from the kernels'
// descriptions (the GEMM engine ends them with ", fp16 accumulation" or
// ", fp32 accumulation (REASON)"). Empty when nothing asked.
std::string AccumulationSummary(const ModelReport& r) {
  constexpr std::string_view kFp16 = ", fp16 accumulation";
  constexpr std::string_view kFp32 = ", fp32 accumulation (";
  int fp16 = 0;
  std::map<std::string, int> fp32_reasons;
  for (const NodeReport& n : r.nodes) {
    if (n.kernel.find(kFp16) != std::string::npos) ++fp16;
    const size_t at = n.kernel.find(kFp32);
    if (at == std::string::npos) continue;
    const size_t begin = at + kFp32.size();
    const size_t end = n.kernel.find(')', begin);
    ++fp32_reasons[n.kernel.substr(begin, end == std::string::npos ? end : end - begin)];
  }
  if (fp16 == 0 && fp32_reasons.empty()) return "";
  std::string line = absl::StrCat("fp16 accumulation asked for: ", fp16, " GEMM kernel(s) got it");
  for (const auto& [reason, count] : fp32_reasons) {
    absl::StrAppend(&line, "; ", count, " sum in fp32: ", reason);
  }
  return line;
}

void PrintText(const std::string& path, const ModelReport& r) {
  std::printf("model: %s\nformat: %s\nplanned for: %s\n\ninputs:\n", path.c_str(),
              FormatString(r).c_str(), r.signature.c_str());
  for (const auto& v : r.inputs)
    std::printf("  %s: %s\n", v.name.c_str(), TypeString(v.type).c_str());
  std::printf("outputs:\n");
  for (const auto& v : r.outputs)
    std::printf("  %s: %s\n", v.name.c_str(), TypeString(v.type).c_str());
  std::printf("\nops (after fusion):\n");
  for (const auto& [op, count] : r.op_counts) std::printf("  %-28s %d\n", op.c_str(), count);
  std::printf("\nnodes: %d on gpu, %d on cpu, %d merged into fused epilogues\n", r.gpu_nodes,
              r.cpu_nodes, r.fused_nodes);
  std::printf("sync points: %zu%s\n", r.sync_points.size(),
              r.sync_points.empty() ? " (no tensor data is read back mid-run)" : "");
  for (const auto& line : r.sync_points) std::printf("  %s\n", line.c_str());
  for (const auto& n : r.nodes) {
    std::printf("  %-40s %-24s %-8s opset %-3lld %s\n", n.name.c_str(), n.op_type.c_str(),
                n.domain.c_str(), static_cast<long long>(n.opset), n.device.c_str());
    if (!n.kernel.empty()) std::printf("  %-40s   kernel: %s\n", "", n.kernel.c_str());
  }
  if (const std::string acc = AccumulationSummary(r); !acc.empty()) {
    std::printf("\n%s\n", acc.c_str());
  }
  std::printf("\nstored nodes: %zu, as the file has them, and what runs for each\n",
              r.stored_nodes.size());
  for (const auto& n : r.stored_nodes) {
    std::printf("  %-40s %-44s %s: %s\n", n.stored.name.c_str(), StoredOpString(n.stored).c_str(),
                n.device.c_str(), n.runs_as.c_str());
  }
  std::printf(
      "\nactivation arena: %s bytes (sum of all tensors %s bytes, %.1f%%); weights %s bytes\n",
      absl::StrCat(r.arena_bytes).c_str(), absl::StrCat(r.tensor_bytes_total).c_str(),
      r.tensor_bytes_total ? 100.0 * r.arena_bytes / r.tensor_bytes_total : 0.0,
      absl::StrCat(r.weight_bytes).c_str());
  std::printf(
      "plan cache: %zu plan(s), one per input signature; this one holds %s bytes of device "
      "and %s of host memory; least recently used plans are evicted past the per-device "
      "budget of %s device / %s host bytes (0: unlimited)\n",
      r.cached_plans, absl::StrCat(r.plan_cost.device_bytes).c_str(),
      absl::StrCat(r.plan_cost.host_bytes).c_str(),
      absl::StrCat(r.cache_limits.device_bytes).c_str(),
      absl::StrCat(r.cache_limits.host_bytes).c_str());
  PrintPasses(r);
}

void WriteValues(const char* key, const std::vector<ValueInfo>& values, JsonWriter& w) {
  w.Key(key).BeginArray();
  for (const auto& v : values) {
    w.BeginObject();
    w.Key("name").String(v.name);
    w.Key("type").String(TypeString(v.type));
    w.Key("dtype").String(std::string(DataTypeName(v.type.dtype)));
    w.Key("shape").BeginArray();
    for (const Dim& d : v.type.shape) {
      if (d.is_fixed())
        w.Int(d.value);
      else
        w.String(d.param.empty() ? "?" : d.param);
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

void WriteStrings(const char* key, const std::vector<std::string>& strings, JsonWriter& w) {
  w.Key(key).BeginArray();
  for (const auto& s : strings) w.String(s);
  w.EndArray();
}

void WritePlanCache(const ModelReport& r, JsonWriter& w) {
  w.Key("plan_cache").BeginObject();
  w.Key("plans").Int(static_cast<int64_t>(r.cached_plans));
  w.Key("plan_device_bytes").Int(static_cast<int64_t>(r.plan_cost.device_bytes));
  w.Key("plan_host_bytes").Int(static_cast<int64_t>(r.plan_cost.host_bytes));
  w.Key("budget_device_bytes").Int(static_cast<int64_t>(r.cache_limits.device_bytes));
  w.Key("budget_host_bytes").Int(static_cast<int64_t>(r.cache_limits.host_bytes));
  w.EndObject();
}

// The planned nodes, then the nodes as the file stored them.
void WriteNodes(const ModelReport& r, JsonWriter& w) {
  w.Key("nodes").BeginArray();
  for (const auto& n : r.nodes) {
    w.BeginObject();
    w.Key("name").String(n.name);
    w.Key("op_type").String(n.op_type);
    w.Key("domain").String(n.domain);
    w.Key("opset").Int(n.opset);
    w.Key("device").String(n.device.substr(0, 3));
    w.Key("execution").String(n.device);
    if (!n.kernel.empty()) w.Key("kernel").String(n.kernel);
    WriteStrings("inputs", n.inputs, w);
    WriteStrings("outputs", n.outputs, w);
    w.EndObject();
  }
  w.EndArray();
  w.Key("stored_nodes").BeginArray();
  for (const auto& n : r.stored_nodes) {
    w.BeginObject();
    w.Key("name").String(n.stored.name);
    w.Key("op_type").String(n.stored.op_type);
    w.Key("domain").String(n.stored.domain);
    w.Key("opset").Int(n.stored.opset);
    if (n.stored.since_version > 0) w.Key("since_version").Int(n.stored.since_version);
    w.Key("device").String(n.device);
    w.Key("runs_as").String(n.runs_as);
    w.EndObject();
  }
  w.EndArray();
}

void WritePasses(const ModelReport& r, JsonWriter& w) {
  w.Key("passes").BeginArray();
  for (const PassRecord& p : r.passes) {
    w.BeginObject();
    w.Key("name").String(p.name);
    if (!p.part.empty()) w.Key("part").String(p.part);
    w.Key("level").String(std::string(PassLevelName(p.level)));
    w.Key("state").String(std::string(PassStateName(p.state)));
    if (p.state == PassRecord::State::kRan) {
      w.Key("seconds").Double(p.seconds);
      w.Key("changes").Int(p.changes);
      w.Key("nodes_before").Int(static_cast<int64_t>(p.nodes_before));
      w.Key("nodes_after").Int(static_cast<int64_t>(p.nodes_after));
      w.Key("subgraphs_changed").Int(p.subgraphs_changed);
      w.Key("shape_inferences").Int(p.shape_inferences);
    }
    w.EndObject();
  }
  w.EndArray();
}

void PrintJson(const std::string& path, const ModelReport& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("model").String(path);
  w.Key("signature").String(r.signature);
  w.Key("format").String(r.format);
  if (r.format == "ort") w.Key("ort_format_version").String(r.ort_format_version);
  WriteValues("inputs", r.inputs, w);
  WriteValues("outputs", r.outputs, w);
  w.Key("op_counts").BeginObject();
  for (const auto& [op, count] : r.op_counts) w.Key(op).Int(count);
  w.EndObject();
  w.Key("gpu_nodes").Int(r.gpu_nodes);
  w.Key("cpu_nodes").Int(r.cpu_nodes);
  w.Key("fused_nodes").Int(r.fused_nodes);
  w.Key("sync_points").Int(static_cast<int64_t>(r.sync_points.size()));
  WriteStrings("sync_point_nodes", r.sync_points, w);
  w.Key("arena_bytes").Int(static_cast<int64_t>(r.arena_bytes));
  w.Key("tensor_bytes_total").Int(static_cast<int64_t>(r.tensor_bytes_total));
  w.Key("weight_bytes").Int(static_cast<int64_t>(r.weight_bytes));
  WritePlanCache(r, w);
  WriteNodes(r, w);
  WritePasses(r, w);
  w.EndObject();
  std::printf("%s\n", w.str().c_str());
}

int Inspect(const ModelFlags& flags, bool json) {
  auto runtime = GpuRuntime::Create(RuntimeOptions(flags));
  if (!runtime.ok()) {
    std::fprintf(stderr, "vkserve: %s\n", runtime.status().ToString().c_str());
    return kExitFailure;
  }
  auto model = Model::Load(flags.model_path, (*runtime)->context(), flags.model);
  if (!model.ok()) {
    std::fprintf(stderr, "vkserve: cannot load %s: %s\n", flags.model_path.c_str(),
                 model.status().ToString().c_str());
    return kExitFailure;
  }
  auto report = (*model)->Inspect();
  if (!report.ok()) {
    std::fprintf(stderr, "vkserve: %s\n", report.status().ToString().c_str());
    return kExitFailure;
  }
  if (json)
    PrintJson(flags.model_path, *report);
  else
    PrintText(flags.model_path, *report);
  return 0;
}

}  // namespace

CommandRunner AddInspectCommand(CLI::App& command) {
  struct Flags {
    ModelFlags model;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  AddModelFlags(command, flags->model);
  command.add_flag("--json", flags->json, "print the report as one JSON document");
  command.footer("example: vkserve inspect model.onnx --dim N=1 --json");
  return [flags] { return Inspect(flags->model, flags->json); };
}

}  // namespace vkserve
