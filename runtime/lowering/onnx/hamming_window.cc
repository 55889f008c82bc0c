// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// HammingWindow (opset 17+): a generalized cosine window (cosine_window.h) with
// a0, a1, a2 = 25.0f / 46.0f, 21.0f / 46.0f, 0.0f.
#include "runtime/lowering/onnx/cosine_window.h"

namespace vkserve {
namespace {

struct HammingWindow {
  static constexpr Coefficients kCoefficients = {25.0f / 46.0f, 21.0f / 46.0f, 0.0f};
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "HammingWindow", 17, 27, CosineWindowRewrite<HammingWindow>);

}  // namespace vkserve
