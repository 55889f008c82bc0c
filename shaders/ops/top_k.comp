// SPDX-License-Identifier: Apache-2.0
// TopK (fp32 values, int64 indices) along one axis of a tensor seen as
// [outer, axis, inner]: one invocation per row picks, k times, the element
// that comes next in the order "larger value first (smaller, without
// LARGEST), then smaller index" — so equal values keep their index order, as
// onnxruntime and the ONNX reference. O(k * axis) per row. Outputs are
// [outer, k, inner]; rows numbered as in op_util.h GroupsFor.
// The ops/top_k_int variant (VKSERVE_INT) takes 4- or 8-byte integers
// (ELEM_BYTES), signed or not: each is widened to 64 bits held as two 32-bit
// words and compared as a key whose sign bit is flipped when SIGNED, so no
// shaderInt64 is needed; values are copied out unchanged.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool LARGEST = true;
layout(constant_id = 4) const uint ELEM_BYTES = 4;  // VKSERVE_INT: 4 or 8
layout(constant_id = 5) const bool SIGNED = true;   // VKSERVE_INT

#ifdef VKSERVE_INT
layout(binding = 0) readonly buffer X { uint x[]; };
layout(binding = 0) readonly buffer X2 { uvec2 x2[]; };
layout(binding = 1) writeonly buffer Values { uint values[]; };
layout(binding = 1) writeonly buffer Values2 { uvec2 values2[]; };
#define VALUE uvec2
#else
layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) writeonly buffer Values { float values[]; };
#define VALUE float
#endif
layout(binding = 2) writeonly buffer Indices { uvec2 indices[]; };  // int64

layout(push_constant) uniform Params {
  uint rows;
  uint axis;
  uint inner;
  uint k;
} p;

#ifdef VKSERVE_INT
// Element i as (lo, hi) words, its sign bit flipped when SIGNED so that
// unsigned comparison orders it.
uvec2 Load(uint i) {
  uvec2 v;
  if (ELEM_BYTES == 8u) {
    v = x2[i];
  } else {
    v = uvec2(x[i], SIGNED && int(x[i]) < 0 ? 0xFFFFFFFFu : 0u);
  }
  if (SIGNED) v.y ^= 0x80000000u;
  return v;
}
void Store(uint o, uvec2 v) {
  if (SIGNED) v.y ^= 0x80000000u;
  if (ELEM_BYTES == 8u) {
    values2[o] = v;
  } else {
    values[o] = v.x;
  }
}
bool Greater(uvec2 a, uvec2 b) { return a.y != b.y ? a.y > b.y : a.x > b.x; }
#else
float Load(uint i) { return x[i]; }
void Store(uint o, float v) { values[o] = v; }
bool Greater(float a, float b) { return a > b; }
#endif

// Whether (v, i) comes before (w, j).
bool Before(VALUE v, uint i, VALUE w, uint j) {
  if (v != w) return LARGEST ? Greater(v, w) : Greater(w, v);
  return i < j;
}

void main() {
  const uint row = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (row >= p.rows) return;
  const uint o = row / p.inner, in_row = row % p.inner;
  const uint base = o * p.axis * p.inner + in_row;
  const uint out_base = o * p.k * p.inner + in_row;
  VALUE prev_v = VALUE(0);
  uint prev_i = 0xFFFFFFFFu;
  for (uint t = 0; t < p.k; ++t) {
    bool found = false;
    VALUE best_v = VALUE(0);
    uint best_i = 0;
    for (uint j = 0; j < p.axis; ++j) {
      const VALUE v = Load(base + j * p.inner);
      const bool after_prev = prev_i == 0xFFFFFFFFu || Before(prev_v, prev_i, v, j);
      if (after_prev && (!found || Before(v, j, best_v, best_i))) {
        found = true;
        best_v = v;
        best_i = j;
      }
    }
    Store(out_base + t * p.inner, best_v);
    indices[out_base + t * p.inner] = uvec2(best_i, 0u);
    prev_v = best_v;
    prev_i = best_i;
  }
}
