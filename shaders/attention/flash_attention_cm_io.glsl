// SPDX-License-Identifier: Apache-2.0
// The interface both tensor-core flash attentions share
// (flash_attention_cm.glsl, scores through shared memory, and
// flash_attention_cm_regs.glsl, scores in registers): their extensions,
// tensor types, specialization constants, bindings and push constants.
// Included right after #version (it declares extensions); EMULATE selects
// the scalar emulation (no cooperative-matrix extension), VKSERVE_F16 fp16
// tensors. flash_attention_cm_loads.glsl holds their loads.
#ifndef VKSERVE_FLASH_ATTENTION_CM_IO_GLSL_
#define VKSERVE_FLASH_ATTENTION_CM_IO_GLSL_

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_EXT_control_flow_attributes : require
#include "precision.glsl"
#if !EMULATE
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif
#if VKSERVE_F16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

#if VKSERVE_F16
#define IO_T float16_t
#define IO_T4 f16vec4
#else
#define IO_T float
#define IO_T4 vec4
#endif

layout(constant_id = 3) const uint HEAD = 64;  // head size of Q, K and V (<= EP)
layout(constant_id = 4) const uint MASK = 0;   // 0 none, 1 additive float, 2 bool
layout(constant_id = 5) const bool CAUSAL = false;
layout(constant_id = 6) const bool EMPTY_ZERO = false;  // a row that sees no key is 0, not NaN
// Every offset and row stride of Q, K, V and HEAD are multiples of 4: 4-wide
// loads (else scalar gathers).
layout(constant_id = 7) const bool VEC4 = false;

layout(binding = 0) readonly buffer QBuf { IO_T q[]; };
layout(binding = 0) readonly buffer QBuf4 { IO_T4 q4[]; };
layout(binding = 1) readonly buffer KBuf { IO_T k[]; };
layout(binding = 1) readonly buffer KBuf4 { IO_T4 k4[]; };
layout(binding = 2) readonly buffer VBuf { IO_T v[]; };
layout(binding = 2) readonly buffer VBuf4 { IO_T4 v4[]; };
layout(binding = 3) readonly buffer MaskF { IO_T mask_f[]; };
layout(binding = 3) readonly buffer MaskB { uint mask_b[]; };  // bool bytes
layout(binding = 4) writeonly buffer YBuf { IO_T y[]; };

#include "flash_attention_params.glsl"

#define kNegInf uintBitsToFloat(0xFF800000u)

#endif  // VKSERVE_FLASH_ATTENTION_CM_IO_GLSL_
