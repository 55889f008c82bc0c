// SPDX-License-Identifier: Apache-2.0
// TfIdfVectorizer (runtime/ops/text/tfidf_vectorizer.cc): one invocation per
// (row, output slot) counts, in its row of `len` integer tokens, the pool
// n-grams mapped to that slot — a unigram once per position, a longer
// n-gram once per start and skip s in [0, max_skip] (tokens s + 1 apart)
// — and writes the count (TF), the gram's weight when it occurs (IDF) or
// both multiplied (TFIDF). The tables come from the host, as uints in one
// buffer: slot_start[slots + 1] (which grams feed each slot, CSR), then per
// gram (n, pool offset, weight bits, 0), then the pool's int64 tokens as
// (low, high) words. Tokens are int64 (two words) or int32 (INPUT_INT64 off).
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool INPUT_INT64 = true;
layout(constant_id = 4) const uint MODE = 0;  // 0 TF, 1 IDF, 2 TFIDF

layout(binding = 0) readonly buffer X { int x[]; };
layout(binding = 1) readonly buffer Tables { uint tables[]; };
layout(binding = 2) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
  uint count;  // rows * slots
  uint slots;
  uint len;    // tokens per row
  uint max_skip;
  uint grams_at;  // where the gram table starts in `tables`
  uint pool_at;   // where the pool starts
} p;

// Token t of row `row`, as (low, high) words.
ivec2 Token(uint row, uint t) {
  const uint i = row * p.len + t;
  return INPUT_INT64 ? ivec2(x[2u * i], x[2u * i + 1u]) : ivec2(x[i], x[i] >> 31);
}

bool Matches(uint row, uint start, uint step, uint n, uint offset) {
  for (uint k = 0u; k < n; ++k) {
    const uint at = p.pool_at + 2u * (offset + k);
    if (Token(row, start + k * step) != ivec2(int(tables[at]), int(tables[at + 1u]))) return false;
  }
  return true;
}

void main() {
  const uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  if (id >= p.count) return;
  const uint slot = id % p.slots;
  const uint row = id / p.slots;
  float value = 0.0;
  for (uint g = tables[slot]; g < tables[slot + 1u]; ++g) {
    const uint entry = p.grams_at + 4u * tables[p.slots + 1u + g];
    const uint n = tables[entry];
    const uint offset = tables[entry + 1u];
    const float weight = uintBitsToFloat(tables[entry + 2u]);
    uint hits = 0u;
    for (uint start = 0u; start < p.len; ++start) {
      const uint skips = n == 1u ? 0u : p.max_skip;  // a unigram counts once per position
      for (uint s = 0u; s <= skips; ++s) {
        if (start + (n - 1u) * (s + 1u) >= p.len) break;
        if (Matches(row, start, s + 1u, n, offset)) ++hits;
      }
    }
    if (MODE == 0u) value += float(hits);
    else if (MODE == 1u) value += hits > 0u ? weight : 0.0;
    else value += float(hits) * weight;
  }
  y[id] = value;
}
