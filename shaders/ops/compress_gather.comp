// SPDX-License-Identifier: Apache-2.0
// Compress at a sync point, step 2: input seen as [outer, axis, inner],
// output densely as [outer, n, inner] with n from step 1's count and row k
// of it the input's row sel[k]. Dispatched over the bound (n = axis); the
// invocations past n's elements do nothing. Elements of a word or more
// (WORDS per element): one invocation per element; narrower (ELEM_BYTES 1
// or 2): one per output word, so no two invocations write one word. Index
// as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint ELEM_BYTES = 4;

layout(binding = 0) readonly buffer X { uint x[]; };
layout(binding = 1) readonly buffer Sel { uint sel[]; };
layout(binding = 2) readonly buffer Count { uint count[]; };
layout(binding = 3) writeonly buffer Y { uint y[]; };

layout(push_constant) uniform Params {
  uint outer;
  uint axis;
  uint inner;
} p;

// The input element output element j copies (n selected rows).
uint source_of(uint j, uint n) {
  const uint i = j % p.inner;
  const uint k = (j / p.inner) % n;
  const uint o = j / (p.inner * n);
  return (o * p.axis + sel[k]) * p.inner + i;
}

void main() {
  const uint g = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint n = count[0];
  const uint total = p.outer * n * p.inner;
  if (ELEM_BYTES >= 4) {
    const uint words = ELEM_BYTES / 4;
    if (g >= total) return;
    const uint s = source_of(g, n);
    for (uint w = 0; w < words; ++w) y[g * words + w] = x[s * words + w];
    return;
  }
  const uint per_word = 4 / ELEM_BYTES;
  const uint bits = ELEM_BYTES * 8;
  const uint mask = (1u << bits) - 1u;
  if (g * per_word >= total) return;
  uint word = 0;
  for (uint e = 0; e < per_word; ++e) {
    const uint j = g * per_word + e;
    if (j >= total) break;
    const uint s = source_of(j, n);
    word |= ((x[s / per_word] >> ((s % per_word) * bits)) & mask) << (e * bits);
  }
  y[g] = word;
}
