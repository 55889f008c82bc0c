// SPDX-License-Identifier: Apache-2.0
// TopK (fp32 values, int64 indices) along one axis of a tensor seen as
// [outer, axis, inner], in the order "larger value first (smaller, without
// LARGEST), then smaller index" — so equal values keep their index order, as
// onnxruntime and the ONNX reference. One invocation per input element counts
// the elements that come before it (its rank, stopping once it reaches k) and,
// when the rank is below k, writes the element at that output position: ranks
// are distinct, so each of the k outputs is written exactly once. A loop of
// `axis` iterations per invocation, not k * axis: llvmpipe (lavapipe) ends an
// invocation's loops after 65,535 iterations in all, so the op refuses an
// axis longer than that there (runtime/ops/math/top_k.cc). Outputs are
// [outer, k, inner]; invocations numbered as in op_util.h GroupsFor.
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
bool Same(uvec2 a, uvec2 b) { return a == b; }
#else
float Load(uint i) { return x[i]; }
void Store(uint o, float v) { values[o] = v; }
// NaN counts as larger than every number and equal to NaN, so that the
// order is total and the ranks distinct.
bool Greater(float a, float b) { return isnan(a) ? !isnan(b) : a > b; }
bool Same(float a, float b) { return a == b || (isnan(a) && isnan(b)); }
#endif

// Whether (v, i) comes before (w, j).
bool Before(VALUE v, uint i, VALUE w, uint j) {
  if (!Same(v, w)) return LARGEST ? Greater(v, w) : Greater(w, v);
  return i < j;
}

void main() {
  const uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (id >= p.rows * p.axis) return;
  const uint row = id / p.axis, j = id % p.axis;
  const uint o = row / p.inner, in_row = row % p.inner;
  const uint base = o * p.axis * p.inner + in_row;
  const VALUE v = Load(base + j * p.inner);
  uint rank = 0;
  for (uint m = 0; m < p.axis && rank < p.k; ++m) {
    if (m != j && Before(Load(base + m * p.inner), m, v, j)) ++rank;
  }
  if (rank >= p.k) return;
  const uint dst = o * p.k * p.inner + in_row + rank * p.inner;
  Store(dst, v);
  indices[dst] = uvec2(j, 0u);
}
