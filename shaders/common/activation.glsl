// SPDX-License-Identifier: Apache-2.0
// Pointwise activations shared by unary ops and fused Conv/Gemm/MatMul
// epilogues. The ACT_<NAME> codes are generated from activation.def (as is
// runtime/op/activation.h's enum).
#ifndef VKSERVE_ACTIVATION_GLSL_
#define VKSERVE_ACTIVATION_GLSL_

#include "activation_codes.glsl"

// erfc(z) for z >= 0, branch-free: the classic Numerical Recipes erfcc
// Chebyshev fit, fractional error below 1.2e-7 everywhere (far out, exp
// underflows to the limit 0).
float vk_erfc_nonneg(float z) {
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
  return t * exp(-z * z + poly);
}

// erf(x) to about 1e-7 absolute (GLSL has none): a Taylor series near 0,
// where 1 - erfc would lose the relative precision of small results, and
// elsewhere 1 - erfc(|x|).
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
  return sign(x) * (1.0 - vk_erfc_nonneg(z));
}

// GELU, 0.5 x (1 + erf(x / sqrt 2)), through erfc alone: x - 0.5 x erfc(u)
// for x >= 0 and 0.5 x erfc(u) below, u = |x| / sqrt 2. Unlike vk_erf it
// needs no series near 0 (the result is near 0.5 x there, and erfc near 1
// keeps its absolute precision), so a warp runs one path: in a GEMM
// epilogue, where the values fall on both sides of 0, that path and the
// series were both run for every element. Below 0 erfc keeps the result's
// relative precision, which 1 + erf would cancel away.
float vk_gelu(float x) {
  const float e = vk_erfc_nonneg(abs(x) * 0.70710678);
  return 0.5 * x * (x >= 0.0 ? 2.0 - e : e);
}

// tanh without the cancellation of (e^2x - 1) / (e^2x + 1) near 0 (a series
// there) or overflow far out (clamped: tanh(15) is 1 in fp32).
float vk_tanh(float x) {
  if (abs(x) < 0.05) {
    const float x2 = x * x;
    return x * (1.0 - x2 * (1.0 / 3.0 - x2 * (2.0 / 15.0)));
  }
  return tanh(clamp(x, -15.0, 15.0));
}

// log(1 + y) for y >= 0 without losing small y to the rounding of 1 + y.
float vk_log1p(float y) { return y < 1e-4 ? y * (1.0 - 0.5 * y) : log(1.0 + y); }

// max(x, 0) + log(1 + exp(-|x|)): no overflow, and exp(x) for very negative x.
float vk_softplus(float x) { return max(x, 0.0) + vk_log1p(exp(-abs(x))); }

// exp(x) - 1 without cancellation near 0 (GLSL has no expm1).
float vk_expm1(float x) {
  if (abs(x) < 1e-3) return x + 0.5 * x * x + x * x * x / 6.0;
  return exp(x) - 1.0;
}

// The unary math family (ACT_SQRT and after); kinds are spec constants, so
// each pipeline keeps one branch.
float apply_math(uint kind, float x, float alpha, float beta) {
  if (kind == ACT_SQRT) return sqrt(x);
  if (kind == ACT_EXP) return exp(x);
  if (kind == ACT_LOG) return log(x);
  if (kind == ACT_NEG) return -x;
  if (kind == ACT_ABS) return abs(x);
  if (kind == ACT_RECIPROCAL) return 1.0 / x;
  if (kind == ACT_FLOOR) return floor(x);
  if (kind == ACT_CEIL) return ceil(x);
  if (kind == ACT_ROUND) return roundEven(x);
  if (kind == ACT_SIGN) return sign(x);
  if (kind == ACT_SIN) return sin(x);
  if (kind == ACT_COS) return cos(x);
  if (kind == ACT_TAN) return tan(x);
  if (kind == ACT_ASIN) return asin(x);
  if (kind == ACT_ACOS) return acos(x);
  if (kind == ACT_ATAN) return atan(x);
  if (kind == ACT_SINH) return sinh(x);
  if (kind == ACT_COSH) return cosh(x);
  if (kind == ACT_ASINH) return asinh(x);
  if (kind == ACT_ACOSH) return acosh(x);
  if (kind == ACT_ATANH) return atanh(x);
  if (kind == ACT_ELU) return x >= 0.0 ? x : alpha * vk_expm1(x);
  if (kind == ACT_SELU) return beta * (x > 0.0 ? x : alpha * vk_expm1(x));
  if (kind == ACT_CELU) return max(0.0, x) + min(0.0, alpha * vk_expm1(x / alpha));
  if (kind == ACT_SOFTPLUS) return vk_softplus(x);
  if (kind == ACT_SOFTSIGN) return x / (1.0 + abs(x));
  if (kind == ACT_THRESHOLDED_RELU) return x > alpha ? x : 0.0;
  if (kind == ACT_MISH) return x * vk_tanh(vk_softplus(x));
  if (kind == ACT_SHRINK) return x < -alpha ? x + beta : (x > alpha ? x - beta : 0.0);
  return x;
}

float apply_activation(uint kind, float x, float alpha, float beta) {
  if (kind == ACT_RELU) return max(x, 0.0);
  if (kind == ACT_LEAKY_RELU) return x >= 0.0 ? x : alpha * x;
  if (kind == ACT_CLIP) return min(max(x, alpha), beta);
  if (kind == ACT_SIGMOID) return 1.0 / (1.0 + exp(-x));
  if (kind == ACT_HARD_SIGMOID) return clamp(alpha * x + beta, 0.0, 1.0);
  if (kind == ACT_HARD_SWISH) return x * clamp(x / 6.0 + 0.5, 0.0, 1.0);
  if (kind == ACT_TANH) return vk_tanh(x);
  if (kind == ACT_ERF) return vk_erf(x);
  if (kind == ACT_GELU) return vk_gelu(x);
  // 0.5 * x * (1 + tanh(u)) written as x * sigmoid(2u): the same function
  // without the cancellation of 1 + tanh(u) for negative u, and exp's
  // overflow to inf gives the limit 0 (x / inf) rather than NaN.
  if (kind == ACT_GELU_TANH) return x / (1.0 + exp(-1.5957691216 * (x + 0.044715 * x * x * x)));
  if (kind == ACT_QUICK_GELU || kind == ACT_SWISH) return x / (1.0 + exp(-alpha * x));
  return apply_math(kind, x, alpha, beta);
}

#endif  // VKSERVE_ACTIVATION_GLSL_
