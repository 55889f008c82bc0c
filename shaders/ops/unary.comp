// SPDX-License-Identifier: Apache-2.0
// y = f(x) elementwise for the activation ops (Relu, LeakyRelu, Clip,
// Sigmoid, HardSigmoid, HardSwish, Tanh, Erf, Gelu, QuickGelu); ACTIVATION
// picks f (codes in
// activation.glsl). Four elements per invocation, vec4 loads when aligned.
#version 450
#include "precision.glsl"
#include "activation.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint ACTIVATION = 1;

#if VKSERVE_F16
// The ops/unary_f16 variant (shaders/CMakeLists.txt): fp16 tensors, two per
// 32-bit word, computed in fp32; an invocation writes two whole words.
layout(binding = 0) readonly buffer XH { uint xh[]; };
layout(binding = 1) writeonly buffer YH { uint yh[]; };
#else
layout(binding = 0) readonly buffer X { vec4 x4[]; };
layout(binding = 1) writeonly buffer Y { vec4 y4[]; };
layout(binding = 0) readonly buffer XS { float x[]; };
layout(binding = 1) writeonly buffer YS { float y[]; };
#endif

layout(push_constant) uniform Params {
  uint n;  // elements
  float alpha;
  float beta;
} p;

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint base = 4 * i;
#if VKSERVE_F16
  for (uint w = 0; w < 2u; ++w) {
    const uint e = base + 2u * w;
    if (e >= p.n) return;
    const vec2 v = unpackHalf2x16(xh[2u * i + w]);
    yh[2u * i + w] = packHalf2x16(vec2(apply_activation(ACTIVATION, v.x, p.alpha, p.beta),
                                       apply_activation(ACTIVATION, v.y, p.alpha, p.beta)));
  }
#else
  if (base + 3 < p.n) {
    const vec4 v = x4[i];
    y4[i] = vec4(apply_activation(ACTIVATION, v.x, p.alpha, p.beta),
                 apply_activation(ACTIVATION, v.y, p.alpha, p.beta),
                 apply_activation(ACTIVATION, v.z, p.alpha, p.beta),
                 apply_activation(ACTIVATION, v.w, p.alpha, p.beta));
  } else {
    for (uint k = base; k < p.n; ++k) y[k] = apply_activation(ACTIVATION, x[k], p.alpha, p.beta);
  }
#endif
}
