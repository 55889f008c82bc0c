// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "shaders/khr/spirv_module.h"

#include <cstring>

#include "absl/strings/str_format.h"

namespace vkserve::spirv {

Instruction MakeInstruction(uint32_t opcode, std::vector<uint32_t> operands) {
  Instruction inst;
  inst.words.reserve(operands.size() + 1);
  inst.words.push_back((static_cast<uint32_t>(operands.size() + 1) << 16) | opcode);
  inst.words.insert(inst.words.end(), operands.begin(), operands.end());
  return inst;
}

absl::StatusOr<Module> ParseModule(std::span<const uint32_t> words) {
  if (words.size() < kHeaderWords || words[0] != kMagic) {
    return absl::InvalidArgumentError("not a SPIR-V module (bad magic number or header)");
  }
  Module module;
  module.version = words[1];
  module.generator = words[2];
  module.bound = words[3];
  module.schema = words[4];
  for (size_t at = kHeaderWords; at < words.size();) {
    const uint32_t count = words[at] >> 16;
    if (count == 0 || at + count > words.size()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("SPIR-V instruction at word %u has a bad word count %u", at, count));
    }
    module.instructions.push_back(
        Instruction{std::vector<uint32_t>(words.begin() + at, words.begin() + at + count)});
    at += count;
  }
  return module;
}

std::vector<uint32_t> SerializeModule(const Module& module) {
  std::vector<uint32_t> words = {kMagic, module.version, module.generator, module.bound,
                                 module.schema};
  for (const Instruction& inst : module.instructions) {
    words.insert(words.end(), inst.words.begin(), inst.words.end());
  }
  return words;
}

std::string LiteralString(const Instruction& inst, size_t first) {
  std::string text;
  for (size_t i = first; i < inst.size(); ++i) {
    for (int b = 0; b < 4; ++b) {
      const char c = static_cast<char>((inst[i] >> (8 * b)) & 0xffu);
      if (c == '\0') return text;
      text.push_back(c);
    }
  }
  return text;
}

std::vector<uint32_t> StringWords(std::string_view text) {
  std::vector<uint32_t> words(text.size() / 4 + 1, 0);  // room for the nul
  std::memcpy(words.data(), text.data(), text.size());     // SPIR-V words are little-endian
  return words;
}

bool IsTypeDeclaration(uint32_t opcode) {
  return (opcode >= kOpTypeVoid && opcode <= 39) || opcode == kOpTypeCooperativeMatrixNV ||
         opcode == kOpTypeCooperativeMatrixKHR;
}

bool IsPreamble(uint32_t opcode) {
  switch (opcode) {
    case kOpSourceContinued:
    case kOpSource:
    case kOpSourceExtension:
    case kOpName:
    case kOpMemberName:
    case kOpString:
    case kOpExtension:
    case kOpExtInstImport:
    case kOpMemoryModel:
    case kOpEntryPoint:
    case kOpExecutionMode:
    case kOpCapability:
    case kOpModuleProcessed:
    case kOpDecorate:
    case kOpMemberDecorate:
    case kOpDecorateId:
    case kOpDecorateString:
    case kOpMemberDecorateString:
    case 331:  // OpExecutionModeId
      return true;
    default:
      return false;
  }
}

}  // namespace vkserve::spirv
