// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// DftKernel: the one batched discrete Fourier transform behind DFT and STFT
// (shaders/ops/dft.comp): a direct O(n) sum per output bin over fp32 input
// viewed as [outer, in_len, inner, 1 or 2], optionally cut into frames with
// a window (STFT), forward or inverse, full, one-sided output or a one-sided
// input (irfft). Twiddles are computed on the host in double and uploaded
// once per plan. Stateless functions; thread-safe.
#ifndef VKSERVE_RUNTIME_OPS_SIGNAL_DFT_KERNEL_H_
#define VKSERVE_RUNTIME_OPS_SIGNAL_DFT_KERNEL_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "runtime/op/op.h"

namespace vkserve {

// The twiddle table is 8 n bytes, uploaded with the plan, and n comes from
// the model (dft_length, frame_length): bounded.
inline constexpr uint64_t kMaxDftLength = uint64_t{1} << 20;

struct DftProblem {
  uint64_t outer = 1;       // product of the dims before the axis
  uint64_t in_len = 1;      // the input's extent along the axis
  uint64_t inner = 1;       // product of the dims between the axis and the last
  bool in_complex = false;  // the last dim is 2 (else 1)
  uint64_t n = 1;           // the transform's length
  uint64_t out_len = 1;     // bins (or samples) written per frame
  bool out_complex = true;  // else one real value per output element (irfft)
  bool inverse = false;     // e^(+i...) and a 1/n scale
  bool half_input = false;  // the input is bins 0.. of a Hermitian spectrum
  uint64_t frames = 1;      // STFT: frames of n samples ...
  uint64_t frame_step = 0;  // ... starting this far apart
};

// The kernel for `p`: input 0 is the signal; `window_input`, when set, the
// node input holding n window weights (fp32). The caller has checked the
// shapes; `p` must describe input 0's and output 0's sizes. UNIMPLEMENTED
// past the shader's 32-bit indexing or kMaxDftLength.
absl::StatusOr<std::unique_ptr<Kernel>> CreateDftKernel(KernelContext& ctx, const DftProblem& p,
                                                        std::optional<uint32_t> window_input);

// The scalar input `what` of op `op` (DFT's axis and dft_length, STFT's
// frame_step and frame_length), which sizes the plan: UNIMPLEMENTED unless
// its value is known when the model is planned, INVALID_ARGUMENT unless it
// has one element.
absl::StatusOr<int64_t> PlannedScalarInput(const TensorDesc& desc, const char* op,
                                           const char* what);

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OPS_SIGNAL_DFT_KERNEL_H_
