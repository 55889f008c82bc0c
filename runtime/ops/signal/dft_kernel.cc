// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ops/signal/dft_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/kernels/host_fold.h"

namespace vkserve {
namespace {

constexpr uint32_t kDftKernelLocal = 64;

// (cos, sin)(2 pi j / n) for j in [0, n), as fp32 pairs.
std::vector<uint8_t> Twiddles(uint64_t n) {
  std::vector<float> table(2 * n);
  for (uint64_t j = 0; j < n; ++j) {
    const double angle = 2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(n);
    table[2 * j] = static_cast<float>(std::cos(angle));
    table[2 * j + 1] = static_cast<float>(std::sin(angle));
  }
  std::vector<uint8_t> bytes(table.size() * sizeof(float));
  std::memcpy(bytes.data(), table.data(), bytes.size());
  return bytes;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Kernel>> CreateDftKernel(KernelContext& ctx, const DftProblem& p,
                                                        std::optional<uint32_t> window_input) {
  const uint64_t count = p.outer * p.frames * p.out_len * p.inner;
  if (count == 0) return MakeEmptyKernel();
  const uint64_t in_elements = p.outer * p.in_len * p.inner * (p.in_complex ? 2 : 1);
  constexpr uint64_t kLimit = uint64_t{1} << 31;
  if (count * 2 >= kLimit || in_elements >= kLimit) {
    return absl::UnimplementedError("DFT: tensor too large for 32-bit indexing");
  }
  if (p.n > kMaxDftLength) {
    return absl::UnimplementedError(
        absl::StrCat("DFT length ", p.n, " (at most ", kMaxDftLength, ")"));
  }
  // A frame (STFT) lies inside the signal; a DFT's positions past the
  // input are the zero padding up to n.
  const uint64_t available = p.frame_step > 0 ? p.n : std::min(p.in_len, p.n);
  const uint64_t terms = p.half_input ? std::min(available, p.n / 2 + 1) : available;
  DispatchStep step;
  for (uint64_t v : {count, p.frames, p.out_len, p.inner, p.in_len, p.n, p.frame_step, terms}) {
    step.push.U32(static_cast<uint32_t>(v));
  }
  step.push.F32(p.inverse ? static_cast<float>(1.0 / static_cast<double>(p.n)) : 1.0f);
  ASSIGN_OR_RETURN(
      step.pipeline,
      ctx.GetPipeline("ops/dft", 4, step.push.size(), {kDftKernelLocal, 1, 1},
                      {p.in_complex ? 1u : 0u, p.out_complex ? 1u : 0u, p.inverse ? 1u : 0u,
                       p.half_input ? 1u : 0u, window_input.has_value() ? 1u : 0u}));
  const BufferRef twiddles = BufferRef::Constant(ctx.AddConstant(Twiddles(p.n)));
  step.bindings.push_back(BufferRef::Input(0));
  // Without a window the shader never reads binding 1: the table stands in.
  step.bindings.push_back(window_input.has_value() ? BufferRef::Input(window_input.value())
                                                   : twiddles);
  step.bindings.push_back(twiddles);
  step.bindings.push_back(BufferRef::Output(0));
  step.groups = GroupsFor(count, kDftKernelLocal, ctx.device());
  return MakeDispatchKernel(std::move(step));
}

absl::StatusOr<int64_t> PlannedScalarInput(const TensorDesc& desc, const char* op,
                                           const char* what) {
  if (desc.value == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        op, "'s ", what, " must be known when the model is planned (a constant or a model input)"));
  }
  if (desc.value->num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be a scalar"));
  }
  return ElementAsInt(*desc.value, 0);
}

}  // namespace vkserve
