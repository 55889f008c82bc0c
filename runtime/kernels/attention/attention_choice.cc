// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/kernels/attention/attention_choice.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "runtime/kernels/attention/flash_attention_cm.h"

namespace vkserve {

uint64_t AttentionScoresBytes(const FlashAttentionProblem& p) {
  return static_cast<uint64_t>(p.batch) * p.heads * p.queries * p.keys * sizeof(float);
}

bool UnfusedAttentionFits(const FlashAttentionProblem& p, const gpu::DeviceInfo& device) {
  const uint64_t scores = AttentionScoresBytes(p);
  if (scores == 0 || scores > kAttentionScoresBudget || scores > device.max_storage_buffer_range ||
      scores / sizeof(float) >= (uint64_t{1} << 31)) {
    return false;
  }
  // Packed Q/K/V is bound at each operand's offset.
  const uint64_t align = std::max<uint64_t>(device.min_storage_buffer_offset_alignment, 16);
  for (int64_t off : p.offsets) {
    if (static_cast<uint64_t>(off) * sizeof(float) % align != 0) return false;
  }
  return true;
}

AttentionKernel ChooseAttentionKernel(const FlashAttentionProblem& p, const gpu::DeviceInfo& device,
                                      bool fp16) {
  if (fp16 && p.queries >= kCoopmatAttentionMinQueries &&
      PlanCoopmatAttention(p, device, /*emulated=*/false)) {
    return AttentionKernel::kCoopmat;
  }
  if (!UnfusedAttentionFits(p, device)) return AttentionKernel::kFused;
  double flop = 4.0 * static_cast<double>(p.batch) * p.heads * p.queries * p.keys * p.head_size;
  if (p.causal) flop /= 2;
  return flop <= kFusedAttentionMaxFlop ? AttentionKernel::kFused : AttentionKernel::kUnfused;
}

namespace {

constexpr char kCoopmatTilePrefix[] = "coopmat:";

absl::Status BadPin() {
  return absl::InvalidArgumentError(
      absl::StrCat(kAttentionKernelAttr,
                   " must be the string \"fused\", \"unfused\", \"coopmat\" or "
                   "\"coopmat:<subgroups>x<keys>\""));
}

// "2x64" as {2, 64}; nullopt unless two positive numbers.
std::optional<CoopmatAttentionPin> ParseTile(absl::string_view text) {
  const size_t x = text.find('x');
  uint32_t warps = 0, keys = 0;
  if (x == absl::string_view::npos || !absl::SimpleAtoi(text.substr(0, x), &warps) ||
      !absl::SimpleAtoi(text.substr(x + 1), &keys) || warps == 0 || keys == 0) {
    return std::nullopt;
  }
  return CoopmatAttentionPin{warps, keys};
}

}  // namespace

absl::StatusOr<std::optional<AttentionKernel>> PinnedAttentionKernel(const Node& node) {
  const Attribute* a = node.FindAttribute(kAttentionKernelAttr);
  if (a == nullptr) return std::optional<AttentionKernel>();
  if (a->type == Attribute::Type::kString) {
    if (a->s == "fused") return std::optional<AttentionKernel>(AttentionKernel::kFused);
    if (a->s == "unfused") return std::optional<AttentionKernel>(AttentionKernel::kUnfused);
    if (a->s == "coopmat") return std::optional<AttentionKernel>(AttentionKernel::kCoopmat);
    if (absl::StartsWith(a->s, kCoopmatTilePrefix) &&
        ParseTile(absl::string_view(a->s).substr(sizeof(kCoopmatTilePrefix) - 1))) {
      return std::optional<AttentionKernel>(AttentionKernel::kCoopmat);
    }
  }
  return BadPin();
}

absl::StatusOr<CoopmatAttentionPin> PinnedCoopmatAttentionTile(const Node& node) {
  RETURN_IF_ERROR(PinnedAttentionKernel(node).status());
  const Attribute* a = node.FindAttribute(kAttentionKernelAttr);
  if (a == nullptr || !absl::StartsWith(a->s, kCoopmatTilePrefix)) return CoopmatAttentionPin{};
  return *ParseTile(absl::string_view(a->s).substr(sizeof(kCoopmatTilePrefix) - 1));
}

const char* AttentionKernelName(AttentionKernel kernel) {
  switch (kernel) {
    case AttentionKernel::kFused:
      return "fused";
    case AttentionKernel::kUnfused:
      return "unfused";
    case AttentionKernel::kCoopmat:
      return "coopmat";
  }
  return "?";
}

}  // namespace vkserve
