// SPDX-License-Identifier: Apache-2.0
// Pointwise activations shared by unary ops and fused Conv/Gemm/MatMul
// epilogues. Codes match runtime/activation.h.
#ifndef VKSERVE_ACTIVATION_GLSL_
#define VKSERVE_ACTIVATION_GLSL_

#define ACT_NONE 0u
#define ACT_RELU 1u
#define ACT_LEAKY_RELU 2u
#define ACT_CLIP 3u
#define ACT_SIGMOID 4u
#define ACT_HARD_SIGMOID 5u
#define ACT_HARD_SWISH 6u
#define ACT_TANH 7u

float apply_activation(uint kind, float x, float alpha, float beta) {
  if (kind == ACT_RELU) return max(x, 0.0);
  if (kind == ACT_LEAKY_RELU) return x >= 0.0 ? x : alpha * x;
  if (kind == ACT_CLIP) return min(max(x, alpha), beta);
  if (kind == ACT_SIGMOID) return 1.0 / (1.0 + exp(-x));
  if (kind == ACT_HARD_SIGMOID) return clamp(alpha * x + beta, 0.0, 1.0);
  if (kind == ACT_HARD_SWISH) return x * clamp(x / 6.0 + 0.5, 0.0, 1.0);
  // Clamped: some drivers compute tanh through exp and overflow to NaN.
  if (kind == ACT_TANH) return tanh(clamp(x, -15.0, 15.0));
  return x;
}

#endif  // VKSERVE_ACTIVATION_GLSL_
