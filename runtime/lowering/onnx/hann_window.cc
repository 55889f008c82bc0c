// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// HannWindow (opset 17+): a generalized cosine window (cosine_window.h) with
// a0, a1, a2 = 0.5f, 0.5f, 0.0f.
#include "runtime/lowering/onnx/cosine_window.h"

namespace vkserve {
namespace {

struct HannWindow {
  static constexpr Coefficients kCoefficients = {0.5f, 0.5f, 0.0f};
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "HannWindow", 17, 27, CosineWindowRewrite<HannWindow>);

}  // namespace vkserve
