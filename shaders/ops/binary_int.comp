// SPDX-License-Identifier: Apache-2.0
// c = a (op) b with numpy broadcasting for integers of 1, 2, 4 and 8 bytes,
// signed or not, any element count below 2^32. Every element is
// widened to 64 bits held as two 32-bit words (lo, hi) — sign-extended when
// SIGNED — and computed with carries, so no shaderInt64 is needed; results
// wrap modulo 2^(8 * ELEM_BYTES) like C++ integers (ONNX Runtime's CPU
// kernels).
// OP as in binary.comp: 0 add, 1 sub, 2 mul, 3 div (toward zero; x / 0 is 0,
// as vkserve's host folding), 4 prelu (a < 0 ? a * b : a), 6 min, 7 max,
// 8 mod (the divisor's sign, Python's %), 9 fmod (the dividend's sign),
// 10 and, 11 or, 12 xor, 13 shift left, 14 shift right (logical), 5 pow.
// 1- and 2-byte elements are packed in words: an invocation computes every
// element of one output word, so no two write the same word. Pow with an
// integer exponent is exact modulo 2^(8 * ELEM_BYTES) (square and multiply;
// onnxruntime goes through double, which agrees below 2^53); a negative
// exponent gives 1 / x^-e truncated (1, -1 or 0). With B_FLOAT, b holds fp32
// exponents (ONNX's Pow T1 = int, T2 = float): an integral one takes the
// exact path, any other pow(float(a), b) in fp32 truncated toward zero, as
// onnxruntime's static_cast of std::pow (which computes in double).
// MODE and the push block as in binary.comp; element index as in op_util.h
// GroupsFor.
#version 450

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint OP = 0;
layout(constant_id = 4) const uint MODE = 0;
layout(constant_id = 5) const uint ELEM_BYTES = 8;  // 1, 2, 4 or 8
layout(constant_id = 6) const bool SIGNED = true;
layout(constant_id = 7) const bool B_FLOAT = false;  // OP 5: b is fp32

layout(binding = 0) readonly buffer A { uint a[]; };
layout(binding = 0) readonly buffer A2 { uvec2 a2[]; };
layout(binding = 1) readonly buffer B { uint b[]; };
layout(binding = 1) readonly buffer B2 { uvec2 b2[]; };
layout(binding = 2) writeonly buffer C { uint c[]; };
layout(binding = 2) writeonly buffer C2 { uvec2 c2[]; };

layout(push_constant) uniform Params {
  uint n;
  uint rank;       // MODE 0
  uint dims[6];    // MODE 0; MODE 4/5: dims[0] = inner, dims[1] = channels
  uint a_strides[6];
  uint b_strides[6];
} p;

uvec2 widen(uint v) { return uvec2(v, SIGNED && int(v) < 0 ? 0xFFFFFFFFu : 0u); }

// Element i of a packed buffer of 1- or 2-byte elements, sign-extended.
uint unpack(uint word, uint i) {
  const uint bits = 8u * ELEM_BYTES;
  const uint shift = (i % (4u / ELEM_BYTES)) * bits;
  return SIGNED ? uint(bitfieldExtract(int(word), int(shift), int(bits)))
                : bitfieldExtract(word, int(shift), int(bits));
}

uvec2 load_a(uint i) {
  if (ELEM_BYTES == 8u) return a2[i];
  if (ELEM_BYTES == 4u) return widen(a[i]);
  return widen(unpack(a[i / (4u / ELEM_BYTES)], i));
}
uvec2 load_b(uint i) {
  if (B_FLOAT) return uvec2(b[i], 0u);
  if (ELEM_BYTES == 8u) return b2[i];
  if (ELEM_BYTES == 4u) return widen(b[i]);
  return widen(unpack(b[i / (4u / ELEM_BYTES)], i));
}

bool negative(uvec2 x) { return SIGNED && int(x.y) < 0; }

uvec2 add64(uvec2 x, uvec2 y) {
  uint carry;
  const uint lo = uaddCarry(x.x, y.x, carry);
  return uvec2(lo, x.y + y.y + carry);
}

uvec2 sub64(uvec2 x, uvec2 y) {
  uint borrow;
  const uint lo = usubBorrow(x.x, y.x, borrow);
  return uvec2(lo, x.y - y.y - borrow);
}

uvec2 neg64(uvec2 x) { return sub64(uvec2(0u), x); }

uvec2 mul64(uvec2 x, uvec2 y) {
  uint hi, lo;
  umulExtended(x.x, y.x, hi, lo);
  return uvec2(lo, hi + x.x * y.y + x.y * y.x);
}

bool less_unsigned(uvec2 x, uvec2 y) { return x.y != y.y ? x.y < y.y : x.x < y.x; }

// Unsigned 64-bit quotient by shift and subtract. REQUIRES: y != 0.
uvec2 udiv64(uvec2 x, uvec2 y) {
  if (x.y == 0u && y.y == 0u) return uvec2(x.x / y.x, 0u);
  uvec2 q = uvec2(0u), r = uvec2(0u);
  for (int bit = 63; bit >= 0; --bit) {
    r = uvec2(r.x << 1, (r.y << 1) | (r.x >> 31));
    r.x |= bit >= 32 ? (x.y >> (bit - 32)) & 1u : (x.x >> bit) & 1u;
    if (!less_unsigned(r, y)) {
      r = sub64(r, y);
      if (bit >= 32) q.y |= 1u << (bit - 32); else q.x |= 1u << bit;
    }
  }
  return q;
}

uvec2 div64(uvec2 x, uvec2 y) {
  if (y == uvec2(0u)) return uvec2(0u);
  if (!SIGNED) return udiv64(x, y);
  const bool nx = negative(x), ny = negative(y);
  const uvec2 q = udiv64(nx ? neg64(x) : x, ny ? neg64(y) : y);
  return nx != ny ? neg64(q) : q;
}

bool less(uvec2 x, uvec2 y) {
  if (SIGNED && negative(x) != negative(y)) return negative(x);
  return less_unsigned(x, y);
}

// C's remainder: x - (x / y) * y, 0 for y == 0 (as the host fold).
uvec2 rem64(uvec2 x, uvec2 y) {
  if (y == uvec2(0u)) return uvec2(0u);
  return sub64(x, mul64(div64(x, y), y));
}

// x << s and x >> s (logical) on the element's own width; s of the width or
// more gives 0.
uvec2 shift64(uvec2 x, uvec2 s, bool left) {
  if (s.y != 0u || s.x >= 8u * ELEM_BYTES) return uvec2(0u);
  const uint n = s.x;
  if (ELEM_BYTES < 8u) {
    // Narrow types: drop the sign extension first, and the bits shifted out.
    const uint mask = ELEM_BYTES == 4u ? 0xFFFFFFFFu : (1u << (8u * ELEM_BYTES)) - 1u;
    const uint v = x.x & mask;
    return uvec2((left ? v << n : v >> n) & mask, 0u);
  }
  if (n == 0u) return x;
  if (left) return n >= 32u ? uvec2(0u, x.x << (n - 32u)) : uvec2(x.x << n, (x.y << n) | (x.x >> (32u - n)));
  return n >= 32u ? uvec2(x.y >> (n - 32u), 0u) : uvec2((x.x >> n) | (x.y << (32u - n)), x.y >> n);
}

// x^e for e >= 0 by square and multiply, wrapping modulo 2^64.
uvec2 upow64(uvec2 x, uvec2 e) {
  uvec2 r = uvec2(1u, 0u);
  for (int bit = 0; bit < 64; ++bit) {
    if (e == uvec2(0u)) break;
    if ((e.x & 1u) != 0u) r = mul64(r, x);
    x = mul64(x, x);
    e = uvec2((e.x >> 1) | (e.y << 31), e.y >> 1);
  }
  return r;
}

// Integer pow; a negative exponent (e_negative, e in two's complement)
// truncates 1 / x^-e to 1, -1 or 0.
uvec2 ipow64(uvec2 x, uvec2 e, bool e_negative) {
  if (e_negative) {
    if (x == uvec2(1u, 0u)) return x;
    if (SIGNED && x == uvec2(0xFFFFFFFFu)) return (e.x & 1u) != 0u ? x : uvec2(1u, 0u);
    return uvec2(0u);
  }
  return upow64(x, e);
}

// a (as a float) ^ b truncated toward zero into 64 bits; NaN gives 0, and
// out-of-range values saturate.
uvec2 fpow64(uvec2 x, float y) {
  const bool nx = negative(x);
  const uvec2 mag = nx ? neg64(x) : x;
  const float fx = float(mag.y) * 4294967296.0 + float(mag.x);
  if (nx && y != trunc(y)) return uvec2(0u);  // NaN in C
  const bool odd = abs(mod(y, 2.0)) == 1.0;
  float r = pow(fx, y);
  if (nx && odd) r = -r;
  if (isnan(r)) return uvec2(0u);
  // fp32 pow may land an ulp or so below an exact integer (4^0.5 as
  // 1.9999999), which truncation would turn into the integer below: snap
  // results within 4 ulps of an integer to it.
  const float nearest = round(r);
  if (abs(r - nearest) <= 4.8e-7 * abs(r)) r = nearest;
  r = trunc(clamp(r, -9.2e18, 9.2e18));
  const bool neg = r < 0.0;
  const float a = abs(r);
  const float hi = floor(a / 4294967296.0);
  const uvec2 v = uvec2(uint(a - hi * 4294967296.0), uint(hi));
  return neg ? neg64(v) : v;
}

uvec2 pow_apply(uvec2 x, uvec2 y) {
  if (!B_FLOAT) return ipow64(x, y, negative(y));
  const float e = uintBitsToFloat(y.x);
  if (e == trunc(e) && abs(e) < 2147483648.0) {
    const int ie = int(e);
    return ipow64(x, uvec2(uint(ie), ie < 0 ? 0xFFFFFFFFu : 0u), ie < 0);
  }
  return fpow64(x, e);
}

uvec2 apply(uvec2 x, uvec2 y) {
  if (OP == 5u) return pow_apply(x, y);
  if (OP == 10u) return x & y;
  if (OP == 11u) return x | y;
  if (OP == 12u) return x ^ y;
  if (OP == 13u || OP == 14u) return shift64(x, y, OP == 13u);
  if (OP == 0u) return add64(x, y);
  if (OP == 1u) return sub64(x, y);
  if (OP == 2u) return mul64(x, y);
  if (OP == 3u) return div64(x, y);
  if (OP == 6u) return less(y, x) ? y : x;
  if (OP == 7u) return less(x, y) ? y : x;
  if (OP == 8u || OP == 9u) {
    const uvec2 r = rem64(x, y);
    if (OP == 8u && r != uvec2(0u) && negative(r) != negative(y)) return add64(r, y);
    return r;
  }
  return negative(x) ? mul64(x, y) : x;
}

uvec2 compute(uint i);

// 1- and 2-byte elements: the invocation writes a whole word of them.
void store_packed(uint word) {
  const uint per_word = 4u / ELEM_BYTES;
  const uint bits = 8u * ELEM_BYTES;
  uint packed = 0u;
  for (uint k = 0u; k < per_word; ++k) {
    const uint i = word * per_word + k;
    if (i < p.n) packed = bitfieldInsert(packed, compute(i).x, int(k * bits), int(bits));
  }
  c[word] = packed;
}

void main() {
  const uint inv = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (ELEM_BYTES < 4u) {
    if (inv * (4u / ELEM_BYTES) < p.n) store_packed(inv);
    return;
  }
  if (inv >= p.n) return;
  const uvec2 v = compute(inv);
  if (ELEM_BYTES == 8u) {
    c2[inv] = v;
  } else {
    c[inv] = v.x;
  }
}

uvec2 compute(uint i) {
  if (MODE == 1) {
    return apply(load_a(i), load_b(i));
  } else if (MODE == 2) {
    return apply(load_a(i), load_b(0));
  } else if (MODE == 3) {
    return apply(load_a(0), load_b(i));
  } else if (MODE == 4) {
    return apply(load_a(i), load_b((i / p.dims[0]) % p.dims[1]));
  } else if (MODE == 5) {
    return apply(load_a((i / p.dims[0]) % p.dims[1]), load_b(i));
  } else {
    uint rest = i, ai = 0, bi = 0;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
      const uint coord = rest % p.dims[d];
      rest /= p.dims[d];
      ai += coord * p.a_strides[d];
      bi += coord * p.b_strides[d];
    }
    return apply(load_a(ai), load_b(bi));
  }
}
