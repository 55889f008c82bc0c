// SPDX-License-Identifier: Apache-2.0
// A batched discrete Fourier transform along one axis (runtime/ops/
// dft_kernel.h), serving DFT and STFT: the input viewed as
// [outer, in_len, inner, IN_COMPLEX ? 2 : 1], the output as
// [outer, frames, out_len, inner, OUT_COMPLEX ? 2 : 1]. Output bin k of
// frame f sums the `terms` input positions f * frame_step + m (times
// window[m] with HAS_WINDOW) against e^(-+2 pi i k m / n), the twiddles
// cos/sin(2 pi j / n) read from a table the host computed in double (the
// device's sin/cos may be far less exact); the index j = k m mod n is
// advanced by k each term, so no product overflows. HALF_INPUT is the
// inverse of a one-sided spectrum (numpy's irfft): the input holds bins
// 0..in_len-1 of a Hermitian spectrum of length n, the output is real.
// One invocation per output element; fp32 sums.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool IN_COMPLEX = false;
layout(constant_id = 4) const bool OUT_COMPLEX = true;
layout(constant_id = 5) const bool INVERSE = false;
layout(constant_id = 6) const bool HALF_INPUT = false;
layout(constant_id = 7) const bool HAS_WINDOW = false;

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) readonly buffer Window { float window[]; };
layout(binding = 2) readonly buffer Twiddles { vec2 twiddle[]; };  // (cos, sin)(2 pi j / n)
layout(binding = 3) writeonly buffer Y { float y[]; };

layout(push_constant) uniform Params {
  uint count;   // output elements (complex pairs count once)
  uint frames;
  uint out_len;
  uint inner;
  uint in_len;
  uint n;       // the transform's length
  uint frame_step;
  uint terms;   // input positions summed (the rest is zero padding)
  float scale;  // 1/n for the inverse, else 1
} p;

vec2 Load(uint at) {
  const uint c = IN_COMPLEX ? 2u : 1u;
  return vec2(x[at * c], IN_COMPLEX ? x[at * c + 1u] : 0.0);
}

void main() {
  const uint e = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  if (e >= p.count) return;
  const uint i = e % p.inner;
  uint t = e / p.inner;
  const uint k = t % p.out_len;
  t /= p.out_len;
  const uint f = t % p.frames;
  const uint o = t / p.frames;
  const uint base = o * p.in_len + f * p.frame_step;  // position 0 of this frame
  // e^(i theta) with theta = -+2 pi j / n.
  const float sign = INVERSE ? 1.0 : -1.0;
  vec2 acc = vec2(0.0);
  if (HALF_INPUT) {
    // Real output: bin 0, twice the real part of each bin that has a mirror
    // image, and the Nyquist bin once (n even); the imaginary parts of bins
    // 0 and n/2 drop out, as numpy's irfft drops them.
    // (terms <= n / 2 + 1, so every bin but those two has its mirror.)
    uint j = 0u;
    for (uint m = 0u; m < p.terms; ++m) {
      const vec2 v = Load((base + m) * p.inner + i);
      const vec2 w = twiddle[j];
      const float re = v.x * w.x - v.y * sign * w.y;
      acc.x += (m == 0u || 2u * m == p.n) ? re : 2.0 * re;
      j += k;
      if (j >= p.n) j -= p.n;
    }
  } else {
    uint j = 0u;
    for (uint m = 0u; m < p.terms; ++m) {
      vec2 v = Load((base + m) * p.inner + i);
      if (HAS_WINDOW) v *= window[m];
      const vec2 w = vec2(twiddle[j].x, sign * twiddle[j].y);
      acc += vec2(v.x * w.x - v.y * w.y, v.x * w.y + v.y * w.x);
      j += k;
      if (j >= p.n) j -= p.n;
    }
  }
  acc *= p.scale;
  if (OUT_COMPLEX) {
    y[e * 2u] = acc.x;
    y[e * 2u + 1u] = acc.y;
  } else {
    y[e] = acc.x;
  }
}
