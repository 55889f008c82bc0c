// SPDX-License-Identifier: Apache-2.0
// The update step shared by scatter_nd.comp and scatter_elements.comp: out
// is a copy of data, element `at` (WORDS words) takes update word(s) `from`
// combined by REDUCTION (0 none, 1 add, 2 mul, 3 max, 4 min; reductions on
// fp32 only). Every invocation applies its updates in index order, so
// duplicate indices resolve as ONNX's sequential definition.
#ifndef VKSERVE_SCATTER_COMMON_GLSL_
#define VKSERVE_SCATTER_COMMON_GLSL_

layout(constant_id = 3) const uint WORDS = 1;
layout(constant_id = 4) const uint REDUCTION = 0;

layout(binding = 2) readonly buffer Updates { uint updates[]; };
layout(binding = 3) buffer Out { uint out_words[]; };

void Apply(uint at, uint from) {
  if (REDUCTION == 0u) {
    for (uint w = 0; w < WORDS; ++w) out_words[at * WORDS + w] = updates[from * WORDS + w];
    return;
  }
  const float a = uintBitsToFloat(out_words[at]);
  const float b = uintBitsToFloat(updates[from]);
  float r = b;
  if (REDUCTION == 1u) r = a + b;
  if (REDUCTION == 2u) r = a * b;
  if (REDUCTION == 3u) r = max(a, b);
  if (REDUCTION == 4u) r = min(a, b);
  out_words[at] = floatBitsToUint(r);
}

int NormalizedIndex(ivec2 v, uint dim) {
  int i = v.x;
  if (i < 0) i += int(dim);
  return clamp(i, 0, int(dim) - 1);
}

#endif  // VKSERVE_SCATTER_COMMON_GLSL_
