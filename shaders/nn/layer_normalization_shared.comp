// SPDX-License-Identifier: Apache-2.0
// LayerNormalization with shared-memory reductions only: for devices
// without subgroup arithmetic, and for rows handled by fewer threads than a
// subgroup; see layer_normalization.glsl.
#version 450

#define LN_SUBGROUP 0
#include "layer_normalization.glsl"
