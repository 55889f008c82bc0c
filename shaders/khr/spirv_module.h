// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// SpirvModule: a SPIR-V binary split into its header and instructions, the
// form the build-time cooperative-matrix rewrite (coopmat_khr_rewrite.h)
// reads, edits and writes back. Only what that rewrite needs: no grammar, so
// operands are raw words. Plain data; thread-compatible.
#ifndef VKSERVE_SHADERS_KHR_SPIRV_MODULE_H_
#define VKSERVE_SHADERS_KHR_SPIRV_MODULE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace vkserve::spirv {

// Opcodes, capabilities and enumerants used here, as the SPIR-V unified
// specification numbers them (spirv.core.grammar.json).
enum Op : uint32_t {
  kOpSourceContinued = 2,
  kOpSource = 3,
  kOpSourceExtension = 4,
  kOpName = 5,
  kOpMemberName = 6,
  kOpString = 7,
  kOpLine = 8,
  kOpExtension = 10,
  kOpExtInstImport = 11,
  kOpMemoryModel = 14,
  kOpEntryPoint = 15,
  kOpExecutionMode = 16,
  kOpCapability = 17,
  kOpTypeVoid = 19,
  kOpTypeBool = 20,
  kOpTypeInt = 21,
  kOpTypeFloat = 22,
  kOpTypeArray = 28,
  kOpTypeRuntimeArray = 29,
  kOpTypeStruct = 30,
  kOpTypePointer = 32,
  kOpTypeFunction = 33,
  kOpConstantTrue = 41,
  kOpConstantFalse = 42,
  kOpConstant = 43,
  kOpConstantComposite = 44,
  kOpConstantNull = 46,
  kOpSpecConstantComposite = 51,
  kOpFunction = 54,
  kOpFunctionParameter = 55,
  kOpFunctionEnd = 56,
  kOpFunctionCall = 57,
  kOpVariable = 59,
  kOpLoad = 61,
  kOpStore = 62,
  kOpCopyMemory = 63,
  kOpAccessChain = 65,
  kOpInBoundsAccessChain = 66,
  kOpPtrAccessChain = 67,
  kOpDecorate = 71,
  kOpMemberDecorate = 72,
  kOpCompositeConstruct = 80,
  kOpCompositeExtract = 81,
  kOpCompositeInsert = 82,
  kOpCopyObject = 83,
  kOpConvertFToU = 109,
  kOpConvertFToS = 110,
  kOpConvertSToF = 111,
  kOpConvertUToF = 112,
  kOpUConvert = 113,
  kOpSConvert = 114,
  kOpFConvert = 115,
  kOpBitcast = 124,
  kOpSNegate = 126,
  kOpFNegate = 127,
  kOpIAdd = 128,
  kOpFAdd = 129,
  kOpISub = 130,
  kOpFSub = 131,
  kOpIMul = 132,
  kOpFMul = 133,
  kOpUDiv = 134,
  kOpSDiv = 135,
  kOpFDiv = 136,
  kOpMatrixTimesScalar = 143,
  kOpSelect = 169,
  kOpPhi = 245,
  kOpReturnValue = 254,
  kOpUndef = 1,
  kOpModuleProcessed = 330,
  kOpDecorateId = 332,
  kOpTypeCooperativeMatrixKHR = 4456,
  kOpCooperativeMatrixLoadKHR = 4457,
  kOpCooperativeMatrixStoreKHR = 4458,
  kOpCooperativeMatrixMulAddKHR = 4459,
  kOpCooperativeMatrixLengthKHR = 4460,
  kOpTypeCooperativeMatrixNV = 5358,
  kOpCooperativeMatrixLoadNV = 5359,
  kOpCooperativeMatrixStoreNV = 5360,
  kOpCooperativeMatrixMulAddNV = 5361,
  kOpCooperativeMatrixLengthNV = 5362,
  kOpDecorateString = 5632,
  kOpMemberDecorateString = 5633,
};

enum Capability : uint32_t {
  kCapabilityCooperativeMatrixNV = 5357,
  kCapabilityCooperativeMatrixKHR = 6022,
};

// OpTypeCooperativeMatrixKHR's Use and the loads' and stores' MemoryLayout.
enum MatrixUse : uint32_t { kMatrixA = 0, kMatrixB = 1, kMatrixAccumulator = 2 };
enum MatrixLayout : uint32_t { kRowMajor = 0, kColumnMajor = 1 };

inline constexpr uint32_t kMagic = 0x07230203;
inline constexpr size_t kHeaderWords = 5;

struct Instruction {
  std::vector<uint32_t> words;  // words[0] is the word count and opcode

  uint32_t opcode() const { return words[0] & 0xffffu; }
  size_t size() const { return words.size(); }
  uint32_t operator[](size_t i) const { return words[i]; }
};

// Builds an instruction from its opcode and operands (the first word is made).
Instruction MakeInstruction(uint32_t opcode, std::vector<uint32_t> operands);

struct Module {
  uint32_t version = 0;
  uint32_t generator = 0;
  uint32_t bound = 0;  // every id is below it
  uint32_t schema = 0;
  std::vector<Instruction> instructions;
};

// Splits `words`; fails on a bad magic number, a truncated instruction or a
// zero word count.
absl::StatusOr<Module> ParseModule(std::span<const uint32_t> words);
std::vector<uint32_t> SerializeModule(const Module& module);

// The nul-terminated literal string starting at words[first] (OpExtension's
// name), or "" past the end.
std::string LiteralString(const Instruction& inst, size_t first);
// The words of a literal string (nul-terminated, padded to a word).
std::vector<uint32_t> StringWords(std::string_view text);

// Whether `opcode` declares a type (OpTypeVoid through OpTypeForwardPointer,
// and the cooperative-matrix types).
bool IsTypeDeclaration(uint32_t opcode);
// Whether `opcode` belongs to the module's preamble before the types:
// capabilities, extensions, entry points, debug and annotation instructions.
bool IsPreamble(uint32_t opcode);

}  // namespace vkserve::spirv

#endif  // VKSERVE_SHADERS_KHR_SPIRV_MODULE_H_
