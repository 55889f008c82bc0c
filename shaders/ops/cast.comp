// SPDX-License-Identifier: Apache-2.0
// Cast: out[i] = convert(in[i]) between the ONNX types named by SRC_TYPE and
// DST_TYPE (TensorProto codes): float, float16, bfloat16, double, bool and
// every integer width from 2 (held one per byte, sign-extended) to 64 bits. 64-bit integers and doubles travel as
// (lo, hi) word pairs so the shader needs neither the Int64 nor the Float64
// capability: doubles convert through float (their bits rebiased by hand), so
// a double keeps float's precision and range on its way through. Elements under 4 bytes are
// addressed through 32-bit words and written with atomics. Float to integer
// truncates toward zero; out-of-range values are undefined, as in ONNX.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint SRC_TYPE = 1;
layout(constant_id = 4) const uint DST_TYPE = 1;

layout(binding = 0) readonly buffer Src { uint src[]; };
layout(binding = 1) buffer Dst { uint dst[]; };

layout(push_constant) uniform Params {
  uint count;
} p;

#define T_FLOAT 1u
#define T_UINT8 2u
#define T_INT8 3u
#define T_UINT16 4u
#define T_INT16 5u
#define T_INT32 6u
#define T_INT64 7u
#define T_BOOL 9u
#define T_FLOAT16 10u
#define T_DOUBLE 11u
#define T_UINT32 12u
#define T_UINT64 13u
#define T_BFLOAT16 16u
#define T_UINT2 25u
#define T_INT2 26u

#define TYPE_BYTES(t) \
  ((t) == T_UINT8 || (t) == T_INT8 || (t) == T_BOOL || (t) == T_UINT2 || (t) == T_INT2 ? 1u \
   : (t) == T_UINT16 || (t) == T_INT16 || (t) == T_FLOAT16 || (t) == T_BFLOAT16 ? 2u \
   : (t) == T_INT64 || (t) == T_UINT64 || (t) == T_DOUBLE ? 8u : 4u)
bool is_float(uint t) {
  return t == T_FLOAT || t == T_FLOAT16 || t == T_BFLOAT16 || t == T_DOUBLE;
}
bool is_signed(uint t) {
  return t == T_INT8 || t == T_INT16 || t == T_INT32 || t == T_INT64 || t == T_INT2;
}

const uint SRC_BYTES = TYPE_BYTES(SRC_TYPE);
const uint DST_BYTES = TYPE_BYTES(DST_TYPE);

// The raw bits of source element i (low word; high word for 64-bit types).
uvec2 load_bits(uint i) {
  if (SRC_BYTES == 8u) return uvec2(src[2u * i], src[2u * i + 1u]);
  if (SRC_BYTES == 4u) return uvec2(src[i], 0u);
  const uint per_word = 4u / SRC_BYTES;
  const uint bits = SRC_BYTES * 8u;
  const uint v = (src[i / per_word] >> ((i % per_word) * bits)) & ((1u << bits) - 1u);
  return uvec2(v, 0u);
}

// IEEE double bits (lo, hi) to the nearest float (denormal doubles flush to
// zero; out-of-range values become infinities, NaN stays NaN).
float double_bits_to_float(uvec2 b) {
  const float sign = (b.y & 0x80000000u) != 0u ? -1.0 : 1.0;
  const int e = int((b.y >> 20) & 0x7ffu);
  const uint hi_mantissa = b.y & 0xfffffu;
  if (e == 0x7ff) {
    return (hi_mantissa | b.x) != 0u ? uintBitsToFloat(0x7fc00000u) : sign * uintBitsToFloat(0x7f800000u);
  }
  if (e == 0) return sign * 0.0;
  // 1.m as the float sum of its high 20 and low 32 mantissa bits.
  const float m = 1.0 + float(hi_mantissa) * exp2(-20.0) + float(b.x) * exp2(-52.0);
  const int unbiased = e - 1023;
  if (unbiased > 127) return sign * uintBitsToFloat(0x7f800000u);
  if (unbiased < -150) return sign * 0.0;
  return sign * ldexp(m, unbiased);
}

// A float as IEEE double bits (lo, hi): exact.
uvec2 float_to_double_bits(float f) {
  const uint b = floatBitsToUint(f);
  const uint sign = b & 0x80000000u;
  const uint e = (b >> 23) & 0xffu;
  uint mantissa = b & 0x7fffffu;
  if (e == 0xffu) return uvec2(mantissa << 29, sign | 0x7ff00000u | (mantissa >> 3));
  if (e == 0u) {
    if (mantissa == 0u) return uvec2(0u, sign);
    // A denormal float: normalize its mantissa.
    int shift = 0;
    while ((mantissa & 0x800000u) == 0u) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x7fffffu;
    const uint de = uint(1 - 127 + 1023 - shift);
    return uvec2(mantissa << 29, sign | (de << 20) | (mantissa >> 3));
  }
  const uint de = e - 127u + 1023u;
  return uvec2(mantissa << 29, sign | (de << 20) | (mantissa >> 3));
}

float bits_to_float(uvec2 b) {
  if (SRC_TYPE == T_FLOAT16) return unpackHalf2x16(b.x).x;
  if (SRC_TYPE == T_BFLOAT16) return uintBitsToFloat(b.x << 16);
  if (SRC_TYPE == T_DOUBLE) return double_bits_to_float(b);
  return uintBitsToFloat(b.x);
}

// Integer source bits as a sign- or zero-extended 64-bit (lo, hi) pair.
uvec2 bits_to_int64(uvec2 b) {
  if (SRC_TYPE == T_BOOL) return uvec2(b.x != 0u ? 1u : 0u, 0u);
  if (SRC_BYTES == 8u) return b;
  uint lo = b.x;
  if (is_signed(SRC_TYPE) && SRC_BYTES < 4u) {
    const uint shift = 32u - SRC_BYTES * 8u;
    lo = uint(int(lo << shift) >> shift);
  }
  const bool negative = is_signed(SRC_TYPE) && (lo & 0x80000000u) != 0u;
  return uvec2(lo, negative ? 0xffffffffu : 0u);
}

float int64_to_float(uvec2 v) {
  const bool signed_src = is_signed(SRC_TYPE);
  if (signed_src && v.y == ((v.x & 0x80000000u) != 0u ? 0xffffffffu : 0u)) return float(int(v.x));
  if (!signed_src && v.y == 0u) return float(v.x);
  const float hi = signed_src ? float(int(v.y)) : float(v.y);
  return hi * 4294967296.0 + float(v.x);
}

uvec2 float_to_int64(float f) {
  f = trunc(f);
  if (abs(f) < 2147483648.0) {
    const int v = int(f);
    return uvec2(uint(v), v < 0 ? 0xffffffffu : 0u);
  }
  const float hi = floor(f / 4294967296.0);
  return uvec2(uint(f - hi * 4294967296.0), uint(int(hi)));
}

uint float_to_dst_bits(float f) {
  if (DST_TYPE == T_FLOAT16) return packHalf2x16(vec2(f, 0.0)) & 0xffffu;
  if (DST_TYPE == T_BFLOAT16) {
    const uint b = floatBitsToUint(f);
    if ((b & 0x7fffffffu) > 0x7f800000u) return (b >> 16) | 0x40u;  // NaN stays NaN
    return (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
  }
  return floatBitsToUint(f);
}

void store_bits(uint i, uvec2 v) {
  if (DST_BYTES == 8u) {
    dst[2u * i] = v.x;
    dst[2u * i + 1u] = v.y;
  } else if (DST_BYTES == 4u) {
    dst[i] = v.x;
  } else {
    const uint per_word = 4u / DST_BYTES;
    const uint bits = DST_BYTES * 8u;
    const uint mask = (1u << bits) - 1u;
    const uint shift = (i % per_word) * bits;
    atomicAnd(dst[i / per_word], ~(mask << shift));
    atomicOr(dst[i / per_word], (v.x & mask) << shift);
  }
}

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  if (i >= p.count) return;
  const uvec2 raw = load_bits(i);
  uvec2 out_bits;
  if (is_float(SRC_TYPE)) {
    const float f = bits_to_float(raw);
    if (DST_TYPE == T_BOOL) {
      out_bits = uvec2(f != 0.0 ? 1u : 0u, 0u);
    } else if (DST_TYPE == T_DOUBLE) {
      out_bits = float_to_double_bits(f);
    } else if (is_float(DST_TYPE)) {
      out_bits = uvec2(float_to_dst_bits(f), 0u);
    } else if (DST_BYTES == 8u) {
      out_bits = float_to_int64(f);
    } else if (is_signed(DST_TYPE) || f < 0.0) {
      out_bits = uvec2(uint(int(trunc(f))), 0u);
    } else {
      out_bits = uvec2(uint(trunc(f)), 0u);
    }
  } else {
    const uvec2 v = bits_to_int64(raw);
    if (DST_TYPE == T_BOOL) {
      out_bits = uvec2((v.x | v.y) != 0u ? 1u : 0u, 0u);
    } else if (DST_TYPE == T_DOUBLE) {
      out_bits = float_to_double_bits(int64_to_float(v));
    } else if (is_float(DST_TYPE)) {
      out_bits = uvec2(float_to_dst_bits(int64_to_float(v)), 0u);
    } else {
      out_bits = v;  // wraps to the destination width in store_bits
    }
  }
  // The 2-bit types (held one per byte) wrap, as ONNX's Cast to them does.
  if (DST_TYPE == T_UINT2) out_bits.x &= 3u;
  if (DST_TYPE == T_INT2) out_bits.x = uint(int(out_bits.x << 30) >> 30);
  store_bits(i, out_bits);
}
