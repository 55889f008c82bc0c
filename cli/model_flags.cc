// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "cli/model_flags.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "gpu/matrix_extension.h"

namespace vkserve {
namespace {

// --dim's value: NAME=SIZE, SIZE a whole number >= 0.
CLI::Validator DimAssignment() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        absl::StatusOr<std::pair<std::string, std::string>> kv = SplitAssignment(text);
        if (!kv.ok()) return std::string(kv.status().message());
        int64_t value = 0;
        if (!absl::SimpleAtoi(kv->second, &value) || value < 0) {
          return absl::StrCat("'", text, "': '", kv->second, "' is not a size");
        }
        return "";
      },
      "");
}

}  // namespace

absl::StatusOr<std::pair<std::string, std::string>> SplitAssignment(const std::string& arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0) {
    return absl::InvalidArgumentError(absl::StrCat("expected NAME=VALUE, got '", arg, "'"));
  }
  return std::make_pair(arg.substr(0, eq), arg.substr(eq + 1));
}

GpuRuntimeOptions RuntimeOptions(const ModelFlags& flags) {
  GpuRuntimeOptions options = flags.gpu;
  options.pipeline_cache_path =
      flags.pipeline_cache ? *flags.pipeline_cache : DefaultPipelineCachePath();
  return options;
}

void AddModelFlags(CLI::App& command, ModelFlags& flags) {
  command.add_option("MODEL", flags.model_path, "the model: an .onnx or .ort file")
      ->type_name("FILE")
      ->required();
  command
      .add_option("--device", flags.gpu.device,
                  "the GPU: an index, a name substring or a UUID, as 'vkserve devices' lists "
                  "them (default: the best one)")
      ->type_name("SEL");
  command
      .add_option("--dim",
                  "give a free dimension (a dim_param or a denotation such as DATA_BATCH) a "
                  "size; repeatable")
      ->type_name("NAME=SIZE")
      ->check(DimAssignment())
      ->each([&flags](const std::string& text) {
        const size_t eq = text.find('=');
        int64_t value = 0;
        (void)absl::SimpleAtoi(text.substr(eq + 1), &value);  // checked above
        // A name matches a dim_param exactly or a denotation (DATA_BATCH, ...).
        flags.model.dim_overrides_by_name[text.substr(0, eq)] = value;
        flags.model.dim_overrides_by_denotation[text.substr(0, eq)] = value;
      })
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  command
      .add_option_function<std::string>(
          "--precision",
          [&flags](const std::string& text) {
            flags.model.precision = text == "FP16" ? Precision::kFp16 : Precision::kFp32;
          },
          "the precision of float activations and weights (default FP32)")
      ->type_name("FP32|FP16")
      ->check(CLI::IsMember({"FP32", "FP16"}).description(""));
  command
      .add_option_function<std::string>(
          "--accumulation",
          [&flags](const std::string& text) {
            flags.model.accumulation =
                text == "FP16" ? Accumulation::kFp16 : Accumulation::kFp32;
          },
          "where FP16 precision's Conv, Gemm and MatMul keep their sums: FP16 on tensor cores "
          "that offer fp16 accumulators (faster, less accurate) (default FP32)")
      ->type_name("FP32|FP16")
      ->check(CLI::IsMember({"FP32", "FP16"}).description(""));
  command
      .add_option_function<std::string>(
          "--conv-layout",
          [&flags](const std::string& text) {
            flags.model.conv_layout = text == "NHWC"   ? ConvLayout::kNhwc
                                      : text == "NCHW" ? ConvLayout::kNchw
                                                       : ConvLayout::kAuto;
          },
          "the layout of Conv activations between Convs: NHWC runs chains of 2-D Convs "
          "channels-last on tensor cores with fp16 activations (the 'channels-last' pass); "
          "AUTO does so on devices with tensor cores, for the chains holding a Conv wider than "
          "1x1; NCHW never (default AUTO)")
      ->type_name("AUTO|NCHW|NHWC")
      ->check(CLI::IsMember({"AUTO", "NCHW", "NHWC"}).description(""));
  command.add_flag_callback(
      "--no-fusion", [&flags] { flags.model.fuse = false; },
      "run every node as stored: no fused epilogues or attention");
  command.add_flag_callback(
      "--no-attention-fusion", [&flags] { flags.model.fuse_attention = false; },
      "keep exporters' attention subgraphs as their separate nodes");
  command
      .add_option_function<std::vector<std::string>>(
          "--disable-pass",
          [&flags](const std::vector<std::string>& names) {
            flags.model.disabled_passes.insert(names.begin(), names.end());
          },
          "skip the load-time graph pass of this name (as 'vkserve inspect' lists them), "
          "for diagnosis; repeatable")
      ->type_name("NAME")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  command
      .add_option_function<std::string>(
          "--pipeline-cache", [&flags](const std::string& path) { flags.pipeline_cache = path; },
          "the pipeline cache file, read at start and saved at exit; '' keeps it in memory only "
          "(default: $XDG_CACHE_HOME/vkserve/pipelines.bin or ~/.cache/vkserve/pipelines.bin)")
      ->type_name("FILE");
  command
      .add_option_function<std::string>(
          "--matrix-extension",
          [&flags](const std::string& text) {
            absl::StatusOr<gpu::MatrixExtension> e = gpu::ParseMatrixExtension(text);
            if (e.ok()) flags.gpu.matrix_extension = *e;  // the check below refuses others
          },
          "the Vulkan extension tensor-core kernels run through: auto (VK_KHR_cooperative_matrix "
          "where offered, else VK_NV_cooperative_matrix), nv, or khr (the rewritten _khr "
          "kernels); nv or khr fail on a device without it")
      ->type_name("auto|nv|khr")
      ->check(CLI::IsMember({"auto", "nv", "khr"}).description(""));
  command.add_flag("--pipeline-statistics", flags.gpu.pipeline_statistics,
                   "log each pipeline's registers, spills and shared memory as the driver "
                   "reports them");
}

}  // namespace vkserve
