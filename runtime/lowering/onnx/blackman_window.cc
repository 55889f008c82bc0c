// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BlackmanWindow (opset 17+): a generalized cosine window (cosine_window.h) with
// a0, a1, a2 = 0.42f, 0.5f, 0.08f.
#include "runtime/lowering/onnx/cosine_window.h"

namespace vkserve {
namespace {

struct BlackmanWindow {
  static constexpr Coefficients kCoefficients = {0.42f, 0.5f, 0.08f};
};

}  // namespace

VKSERVE_REGISTER_REWRITE("", "BlackmanWindow", 17, 27, CosineWindowRewrite<BlackmanWindow>);

}  // namespace vkserve
