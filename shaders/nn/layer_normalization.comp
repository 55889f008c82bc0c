// SPDX-License-Identifier: Apache-2.0
// LayerNormalization with subgroupAdd reductions, for devices with
// subgroup arithmetic in compute shaders; see layer_normalization.glsl.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

#define LN_SUBGROUP 1
#include "layer_normalization.glsl"
