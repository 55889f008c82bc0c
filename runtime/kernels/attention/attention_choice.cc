// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/kernels/attention/attention_choice.h"

#include <algorithm>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
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

// The attribute's kernel and variant, read once: nullopt when the node pins
// none; INVALID_ARGUMENT for any other value than the documented ones.
struct Pin {
  AttentionKernel kernel;
  CoopmatAttentionPin tile;  // all zero unless "coopmat:<subgroups>x<keys>"
};

absl::StatusOr<std::optional<Pin>> ReadPin(const Node& node) {
  const Attribute* a = node.FindAttribute(kAttentionKernelAttr);
  if (a == nullptr) return std::optional<Pin>();
  if (a->type == Attribute::Type::kString) {
    if (a->s == "fused") return std::optional<Pin>(Pin{AttentionKernel::kFused, {}});
    if (a->s == "unfused") return std::optional<Pin>(Pin{AttentionKernel::kUnfused, {}});
    if (a->s == "coopmat") return std::optional<Pin>(Pin{AttentionKernel::kCoopmat, {}});
    // "coopmat:2x64" or "coopmat:2x64x32": positive numbers, the rows a
    // multiple of 16; then maybe where the softmax runs.
    absl::string_view tile = a->s;
    CoopmatAttentionPin pin;
    if (absl::ConsumeSuffix(&tile, ":registers")) {
      pin.softmax = CoopmatSoftmax::kRegisters;
    } else if (absl::ConsumeSuffix(&tile, ":shared")) {
      pin.softmax = CoopmatSoftmax::kShared;
    }
    if (absl::ConsumePrefix(&tile, "coopmat:")) {
      const std::vector<absl::string_view> n = absl::StrSplit(tile, 'x');
      if ((n.size() == 2 || n.size() == 3) && absl::SimpleAtoi(n[0], &pin.warps) &&
          absl::SimpleAtoi(n[1], &pin.keys) && pin.warps > 0 && pin.keys > 0 &&
          (n.size() == 2 ||
           (absl::SimpleAtoi(n[2], &pin.rows) && pin.rows > 0 && pin.rows % 16 == 0))) {
        return std::optional<Pin>(Pin{AttentionKernel::kCoopmat, pin});
      }
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat(kAttentionKernelAttr,
                   " must be the string \"fused\", \"unfused\", \"coopmat\" or "
                   "\"coopmat:<subgroups>x<keys>[x<rows>]\", optionally ending \":shared\" or "
                   "\":registers\""));
}

}  // namespace

absl::StatusOr<std::optional<AttentionKernel>> PinnedAttentionKernel(const Node& node) {
  ASSIGN_OR_RETURN(const std::optional<Pin> pin, ReadPin(node));
  if (!pin) return std::optional<AttentionKernel>();
  return std::optional<AttentionKernel>(pin->kernel);
}

absl::StatusOr<CoopmatAttentionPin> PinnedCoopmatAttentionTile(const Node& node) {
  ASSIGN_OR_RETURN(const std::optional<Pin> pin, ReadPin(node));
  return pin ? pin->tile : CoopmatAttentionPin{};
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
