// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/matrix_extension.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace vkserve::gpu {

bool MatrixExtensionUsable(const DeviceInfo& info, MatrixExtension extension) {
  if (!info.shader_float16) return false;
  switch (extension) {
    case MatrixExtension::kNv:
      return info.nv_cooperative_matrix_feature && !info.nv_coopmat_f16_f32_shapes.empty();
    case MatrixExtension::kKhr:
      return info.khr_cooperative_matrix_feature && !info.khr_coopmat_f16_f32_shapes.empty();
    case MatrixExtension::kAuto:
      break;
  }
  return false;
}

absl::StatusOr<std::optional<MatrixExtension>> ChooseMatrixExtension(const DeviceInfo& info,
                                                                     MatrixExtension wanted) {
  if (wanted == MatrixExtension::kAuto) {
    // KHR first: on an H100 (driver 580) the same kernels ran faster through
    // it than through NV (GEMM 4096^3 264 against 180 TFLOP/s; resnet50,
    // ViT-B/16 and BERT-base at FP16 7-19% faster), benchmarks/results
    // 2026-12-07-h100-tensor-cores-58ed240.jsonl.
    for (MatrixExtension e : {MatrixExtension::kKhr, MatrixExtension::kNv}) {
      if (MatrixExtensionUsable(info, e)) return e;
    }
    return std::nullopt;
  }
  if (MatrixExtensionUsable(info, wanted)) return wanted;
  const bool khr = wanted == MatrixExtension::kKhr;
  return absl::FailedPreconditionError(absl::StrCat(
      "matrix extension ", std::string(MatrixExtensionName(wanted)), ": ", info.name,
      " does not offer ",
      khr ? "VK_KHR_cooperative_matrix" : "VK_NV_cooperative_matrix",
      " with fp16 arithmetic and an fp16 x fp16 -> fp32 subgroup shape"));
}

}  // namespace vkserve::gpu
