// SPDX-License-Identifier: Apache-2.0
// Offsets in a tensor seen through strides as [kept..., reduced...], shared
// by ops/reduce.comp and nn/normalize.comp: KeptOffset(o) is the element
// offset of kept index o, ReducedOffset(r) that of reduced index r within
// it (row-major over the dims). The including shader's push constants `p`
// hold kept_rank, kept_dims[], kept_strides[], reduced_rank, reduced_dims[]
// and reduced_strides[].
#ifndef VKSERVE_STRIDED_OFFSETS_GLSL_
#define VKSERVE_STRIDED_OFFSETS_GLSL_

uint KeptOffset(uint o) {
  uint off = 0;
  for (int d = int(p.kept_rank) - 1; d >= 0; --d) {
    off += (o % p.kept_dims[d]) * p.kept_strides[d];
    o /= p.kept_dims[d];
  }
  return off;
}

uint ReducedOffset(uint r) {
  uint off = 0;
  for (int d = int(p.reduced_rank) - 1; d >= 0; --d) {
    off += (r % p.reduced_dims[d]) * p.reduced_strides[d];
    r /= p.reduced_dims[d];
  }
  return off;
}

#endif  // VKSERVE_STRIDED_OFFSETS_GLSL_
