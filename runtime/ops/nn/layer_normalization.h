// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// LayerNormalization's attribute beyond ONNX's, set only by load-time
// rewrites (ONNX Runtime's SimplifiedLayerNormalization and
// SkipSimplifiedLayerNormalization, ONNX's RMSNormalization):
//
//   _vkserve_rms (int 0/1): RMSNorm. The statistics are taken about zero
//       instead of the mean: Y = X / sqrt(mean(X^2) + epsilon) * Scale (+ B),
//       InvStdDev is 1 / sqrt(mean(X^2) + epsilon) and Mean reads 0. The same
//       kernel, specialized (layer_normalization.glsl's RMS constant).
#ifndef VKSERVE_RUNTIME_OPS_NN_LAYER_NORMALIZATION_H_
#define VKSERVE_RUNTIME_OPS_NN_LAYER_NORMALIZATION_H_

namespace vkserve {

inline constexpr char kLayerNormRmsAttr[] = "_vkserve_rms";

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_NN_LAYER_NORMALIZATION_H_
