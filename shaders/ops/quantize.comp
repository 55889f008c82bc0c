// SPDX-License-Identifier: Apache-2.0
// QuantizeLinear (DEQUANTIZE false) and DequantizeLinear between fp32 and
// integers of QBYTES bytes (1, 2 or 4; QSIGNED; QBITS wide, so 2-bit types
// held one per byte saturate to their range), per tensor, per axis or
// blocked: the scale (and zero point) of element i sits at
// sum_d coord_d / block_d * scale_strides[d] (stride 0 where the scale does
// not vary). Quantize: y = saturate(round_half_even(x / scale) + zp), one
// invocation per output word (4 / QBYTES elements, so no two invocations
// write one word); dequantize: y = (q - zp) * scale, one per element. Index
// as in op_util.h GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool DEQUANTIZE = false;
layout(constant_id = 4) const uint QBYTES = 1;
layout(constant_id = 5) const bool QSIGNED = false;
layout(constant_id = 6) const bool HAS_ZP = true;
layout(constant_id = 7) const uint QBITS = 8;  // saturation range (2 for the 2-bit types)

layout(binding = 0) readonly buffer XF { float xf[]; };   // quantize: x
layout(binding = 0) readonly buffer XQ { uint xq[]; };    // dequantize: packed q
layout(binding = 1) readonly buffer Scale { float scale[]; };
layout(binding = 2) readonly buffer Zp { uint zp[]; };    // packed like q
layout(binding = 3) writeonly buffer YQ { uint yq[]; };   // quantize: packed q
layout(binding = 3) writeonly buffer YF { float yf[]; };  // dequantize: y

layout(push_constant) uniform Params {
  uint n;
  uint rank;
  uint dims[6];
  uint scale_strides[6];
  uint axis;
  uint block;
} p;

uint ScaleIndex(uint i) {
  uint at = 0;
  for (int d = int(p.rank) - 1; d >= 0; --d) {
    uint c = i % p.dims[d];
    i /= p.dims[d];
    if (uint(d) == p.axis) c /= p.block;
    at += c * p.scale_strides[d];
  }
  return at;
}

// Element i of a packed integer buffer, as a signed or unsigned value.
int Unpacked(uint word, uint i) {
  if (QBYTES == 4u) return int(word);
  const uint bits = 8u * QBYTES;
  const int shift = int((i % (4u / QBYTES)) * bits);
  return QSIGNED ? bitfieldExtract(int(word), shift, int(bits)) : int(bitfieldExtract(word, shift, int(bits)));
}

int ZeroPoint(uint at) {
  if (!HAS_ZP) return 0;
  return Unpacked(zp[at / (4u / QBYTES)], at);
}

void main() {
  const uint inv = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (DEQUANTIZE) {
    if (inv >= p.n) return;
    const uint s = ScaleIndex(inv);
    const int q = Unpacked(xq[inv / (4u / QBYTES)], inv);
    yf[inv] = float(q - ZeroPoint(s)) * scale[s];
    return;
  }
  const uint per_word = 4u / QBYTES;
  if (inv * per_word >= p.n) return;
  const float lo = QSIGNED ? -exp2(float(QBITS) - 1.0) : 0.0;
  const float hi = QSIGNED ? exp2(float(QBITS) - 1.0) - 1.0 : exp2(float(QBITS)) - 1.0;
  uint word = 0u;
  for (uint k = 0; k < per_word; ++k) {
    const uint i = inv * per_word + k;
    if (i >= p.n) break;
    const uint s = ScaleIndex(i);
    const float q = clamp(roundEven(xf[i] / scale[s]) + float(ZeroPoint(s)), lo, hi);
    word = QBYTES == 4u ? uint(int(q)) : bitfieldInsert(word, uint(int(q)), int(k * 8u * QBYTES), int(8u * QBYTES));
  }
  yq[inv] = word;
}
