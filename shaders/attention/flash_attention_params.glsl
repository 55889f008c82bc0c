// SPDX-License-Identifier: Apache-2.0
// The push constants of the fused attention kernels, flash_attention.comp
// and its tensor-core form flash_attention_cm.glsl: both take the same
// FlashAttentionParams (runtime/kernels/attention/flash_attention.h).
#ifndef VKSERVE_FLASH_ATTENTION_PARAMS_GLSL_
#define VKSERVE_FLASH_ATTENTION_PARAMS_GLSL_

layout(push_constant) uniform Params {
  uint hq, hkv, s, t;           // query heads, KV heads, query rows, keys
  uint past;                    // causal offset: row i sees keys j <= i + past
  uint q_sb, q_sh, q_ss;        // element strides of b, h, row
  uint k_sb, k_sh, k_ss;
  uint v_sb, v_sh, v_ss;
  uint y_sb, y_sh, y_ss;
  uint m_sb, m_sh, m_ss, m_st;  // mask strides over [B, Hq, S, T] (0 = broadcast)
  uint mask_len;                // the mask's last dim (<= T; later keys are masked)
  float scale;
  uint q_off, k_off, v_off;     // element offsets of Q, K, V (packed Q/K/V share a buffer)
} p;

#endif  // VKSERVE_FLASH_ATTENTION_PARAMS_GLSL_
