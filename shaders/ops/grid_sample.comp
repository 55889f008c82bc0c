// SPDX-License-Identifier: Apache-2.0
// GridSample (fp32) over DIMS (2 or 3) spatial dims: output element
// (n, c, o...) samples X[n, c] at grid[n, o..., :] (x first, so the last
// spatial dim comes first), denormalized by ALIGN. MODE 0 nearest (half to
// even, as the ONNX v1.22 test data), 1 linear, 2 cubic (Keys, a = -0.75);
// PADDING 0 zeros, 1 border, 2 reflection, applied to the coordinate and
// again to every tap, as the ONNX reference. Output index as in op_util.h
// GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint DIMS = 2;
layout(constant_id = 4) const uint MODE = 1;
layout(constant_id = 5) const uint PADDING = 0;
layout(constant_id = 6) const bool ALIGN = false;

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) readonly buffer Grid { float grid[]; };
layout(binding = 2) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
  uint n;         // output elements
  uint channels;
  uint in_dims[3];   // spatial dims of X (first DIMS used)
  uint out_count;    // output spatial elements per (n, c)
} p;

float Reflect(float v, float lo, float hi) {
  const float range = hi - lo;
  if (v < lo) {
    const float d = lo - v;
    const float k = floor(d / range);
    const float r = d - k * range;
    return mod(k, 2.0) == 0.0 ? lo + r : hi - r;
  }
  if (v > hi) {
    const float d = v - hi;
    const float k = floor(d / range);
    const float r = d - k * range;
    return mod(k, 2.0) == 0.0 ? hi - r : lo + r;
  }
  return v;
}

float Lo(uint d) { return ALIGN ? 0.0 : -0.5; }
float Hi(uint d) { return ALIGN ? float(p.in_dims[d]) - 1.0 : float(p.in_dims[d]) - 0.5; }

// Tap index i along dim d after padding; false when it reads zero.
bool TapIndex(int i, uint d, out int at) {
  const int size = int(p.in_dims[d]);
  if (PADDING == 0u) {
    at = i;
    return i >= 0 && i < size;
  }
  if (PADDING == 1u) {
    at = clamp(i, 0, size - 1);
    return true;
  }
  at = clamp(int(Reflect(float(i), Lo(d), Hi(d))), 0, size - 1);
  return true;
}

void Cubic(float t, out float c[4]) {
  const float a = -0.75;
  const float t1 = t + 1.0, t2 = 1.0 - t, t3 = 2.0 - t;
  c[0] = ((a * t1 - 5.0 * a) * t1 + 8.0 * a) * t1 - 4.0 * a;
  c[1] = ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
  c[2] = ((a + 2.0) * t2 - (a + 3.0)) * t2 * t2 + 1.0;
  c[3] = ((a * t3 - 5.0 * a) * t3 + 8.0 * a) * t3 - 4.0 * a;
}

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.n) return;
  const uint o = i % p.out_count;
  const uint nc = i / p.out_count;
  const uint n = nc / p.channels;
  uint plane = 1;
  for (uint d = 0; d < DIMS; ++d) plane *= p.in_dims[d];
  const uint base = nc * plane;
  const uint g = (n * p.out_count + o) * DIMS;
  // Per dim: the first tap, its count and weights.
  int first[3];
  float w[3][4];
  uint taps = MODE == 0u ? 1u : (MODE == 1u ? 2u : 4u);
  for (uint d = 0; d < DIMS; ++d) {
    const float gn = grid[g + DIMS - 1u - d];
    const float size = float(p.in_dims[d]);
    float v = ALIGN ? (gn + 1.0) * 0.5 * (size - 1.0) : ((gn + 1.0) * size - 1.0) * 0.5;
    if (MODE == 0u) v = roundEven(v);
    if (v < Lo(d) || v > Hi(d)) {
      // Cubic taps are clamped one by one instead (as onnxruntime and
      // PyTorch; the ONNX reference clamps the coordinate too, and has no
      // cubic border case).
      if (PADDING == 1u && MODE != 2u) v = clamp(v, 0.0, size - 1.0);
      if (PADDING == 2u) v = Reflect(v, Lo(d), Hi(d));
    }
    if (MODE == 0u) {
      first[d] = int(v);  // truncation, as the reference's astype(int32)
      w[d][0] = 1.0;
    } else if (MODE == 1u) {
      const float f = floor(v);
      first[d] = int(f);
      w[d][0] = 1.0 - (v - f);
      w[d][1] = v - f;
    } else {
      const float f = floor(v);
      first[d] = int(f) - 1;
      float c[4];
      Cubic(v - f, c);
      for (uint k = 0; k < 4u; ++k) w[d][k] = c[k];
    }
  }
  float acc = 0.0;
  uint combos = 1;
  for (uint d = 0; d < DIMS; ++d) combos *= taps;
  for (uint t = 0; t < combos; ++t) {
    uint rest = t, off = 0;
    float weight = 1.0;
    bool inside = true;
    for (int d = int(DIMS) - 1; d >= 0; --d) {
      const uint k = rest % taps;
      rest /= taps;
      int at;
      inside = TapIndex(first[d] + int(k), uint(d), at) && inside;
      uint stride = 1;
      for (uint e = uint(d) + 1u; e < DIMS; ++e) stride *= p.in_dims[e];
      off += uint(max(at, 0)) * stride;
      weight *= w[d][k];
    }
    if (inside) acc += weight * x[base + off];
  }
  y[i] = acc;
}
