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
#define ACT_ERF 8u
#define ACT_GELU 9u
#define ACT_GELU_TANH 10u
#define ACT_QUICK_GELU 11u

// erf(x) to about 1e-7 absolute (GLSL has none): a Taylor series near 0,
// where 1 - erfc would lose the relative precision of small results, and
// elsewhere 1 - erfc(|x|) with a Chebyshev-fitted erfc (fractional error
// below 1.2e-7, the classic Numerical Recipes erfcc fit).
float vk_erf(float x) {
  const float z = abs(x);
  if (z < 0.5) {
    const float x2 = x * x;
    // 2/sqrt(pi) * (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320 + x^13/9360)
    float s = 1.0 / 9360.0;
    s = s * x2 - 1.0 / 1320.0;
    s = s * x2 + 1.0 / 216.0;
    s = s * x2 - 1.0 / 42.0;
    s = s * x2 + 1.0 / 10.0;
    s = s * x2 - 1.0 / 3.0;
    s = s * x2 + 1.0;
    return 1.1283791671 * x * s;
  }
  if (z > 6.0) return sign(x);  // erfc(6) < 3e-17
  const float t = 1.0 / (1.0 + 0.5 * z);
  const float poly =
      -1.26551223 +
      t * (1.00002368 +
      t * (0.37409196 +
      t * (0.09678418 +
      t * (-0.18628806 +
      t * (0.27886807 +
      t * (-1.13520398 +
      t * (1.48851587 +
      t * (-0.82215223 +
      t * 0.17087277))))))));
  const float erfc_z = t * exp(-z * z + poly);
  return sign(x) * (1.0 - erfc_z);
}

float apply_activation(uint kind, float x, float alpha, float beta) {
  if (kind == ACT_RELU) return max(x, 0.0);
  if (kind == ACT_LEAKY_RELU) return x >= 0.0 ? x : alpha * x;
  if (kind == ACT_CLIP) return min(max(x, alpha), beta);
  if (kind == ACT_SIGMOID) return 1.0 / (1.0 + exp(-x));
  if (kind == ACT_HARD_SIGMOID) return clamp(alpha * x + beta, 0.0, 1.0);
  if (kind == ACT_HARD_SWISH) return x * clamp(x / 6.0 + 0.5, 0.0, 1.0);
  // Clamped: some drivers compute tanh through exp and overflow to NaN.
  if (kind == ACT_TANH) return tanh(clamp(x, -15.0, 15.0));
  if (kind == ACT_ERF) return vk_erf(x);
  if (kind == ACT_GELU) return 0.5 * x * (1.0 + vk_erf(x * 0.70710678));
  // 0.5 * x * (1 + tanh(u)) written as x * sigmoid(2u): the same function
  // without the cancellation of 1 + tanh(u) for negative u, and exp's
  // overflow to inf gives the limit 0 (x / inf) rather than NaN.
  if (kind == ACT_GELU_TANH) return x / (1.0 + exp(-1.5957691216 * (x + 0.044715 * x * x * x)));
  if (kind == ACT_QUICK_GELU) return x / (1.0 + exp(-alpha * x));
  return x;
}

#endif  // VKSERVE_ACTIVATION_GLSL_
