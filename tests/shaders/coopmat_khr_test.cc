// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The NV -> KHR cooperative-matrix rewrite (shaders/khr/): on a small
// hand-made module whose answer is known, and on every embedded "_khr"
// kernel the build made. No validator that knows SPV_KHR_cooperative_matrix
// is installable on Debian 12 (its spirv-val is 2023.1), so the embedded
// kernels are read here directly besides passing CheckCoopmatKhrModule.
#include <algorithm>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "shaders/khr/coopmat_khr_check.h"
#include "shaders/khr/coopmat_khr_rewrite.h"
#include "shaders/khr/spirv_module.h"
#include "shaders/shader_registry.h"

namespace vkserve::spirv {
namespace {

// A SPIR-V module written word by word.
class Assembler {
 public:
  explicit Assembler(uint32_t bound) : words_{kMagic, 0x00010500, 0, bound, 0} {}
  Assembler& Op(uint32_t opcode, std::initializer_list<uint32_t> operands) {
    Append(MakeInstruction(opcode, operands));
    return *this;
  }
  Assembler& OpString(uint32_t opcode, std::vector<uint32_t> head, std::string_view text) {
    std::vector<uint32_t> s = StringWords(text);
    head.insert(head.end(), s.begin(), s.end());
    Append(MakeInstruction(opcode, std::move(head)));
    return *this;
  }
  const std::vector<uint32_t>& words() const { return words_; }

 private:
  void Append(const Instruction& in) {
    words_.insert(words_.end(), in.words.begin(), in.words.end());
  }
  std::vector<uint32_t> words_;
};

// One fp16 16x16 NV type serving as A and as B, a constant accumulator,
// a variable holding the accumulator between two multiply-adds, a
// row-major and a column-major load, and a store.
std::vector<uint32_t> SmallModule(bool a_as_b_too) {
  Assembler a(40);
  a.Op(kOpCapability, {1})
      .Op(kOpCapability, {9})
      .Op(kOpCapability, {kCapabilityCooperativeMatrixNV})
      .OpString(kOpExtension, {}, "SPV_NV_cooperative_matrix")
      .Op(kOpMemoryModel, {0, 1})
      .OpString(kOpEntryPoint, {5, 30}, "main")
      .Op(kOpExecutionMode, {30, 17, 32, 1, 1})
      .OpString(kOpName, {8}, "half16")
      .Op(kOpTypeVoid, {1})
      .Op(kOpTypeFunction, {2, 1})
      .Op(kOpTypeFloat, {3, 16})
      .Op(kOpTypeFloat, {4, 32})
      .Op(kOpTypeInt, {5, 32, 0})
      .Op(kOpConstant, {5, 6, 3})    // Subgroup scope
      .Op(kOpConstant, {5, 7, 16})   // rows, columns, stride
      .Op(kOpTypeCooperativeMatrixNV, {8, 3, 6, 7, 7})
      .Op(kOpTypeCooperativeMatrixNV, {9, 4, 6, 7, 7})
      .Op(kOpTypeBool, {10})
      .Op(kOpConstantTrue, {10, 11})
      .Op(kOpConstantFalse, {10, 12})
      .Op(kOpConstant, {5, 15, 256})
      .Op(kOpTypeArray, {14, 3, 15})
      .Op(kOpTypePointer, {16, 4, 14})  // Workgroup
      .Op(kOpTypePointer, {17, 4, 3})
      .Op(kOpVariable, {16, 18, 4})
      .Op(kOpConstant, {4, 19, 0})
      .Op(kOpConstantComposite, {9, 20, 19})
      .Op(kOpConstant, {5, 21, 0})
      .Op(kOpTypePointer, {22, 7, 9})  // Function
      .Op(kOpFunction, {1, 30, 0, 2})
      .Op(248, {31})  // OpLabel
      .Op(kOpVariable, {22, 32, 7})
      .Op(kOpAccessChain, {17, 33, 18, 21})
      .Op(kOpCooperativeMatrixLoadNV, {8, 34, 33, 7, 12})
      .Op(kOpCooperativeMatrixLoadNV, {8, 35, 33, 7, 11})
      .Op(kOpCooperativeMatrixMulAddNV, {9, 36, 34, a_as_b_too ? 34u : 35u, 20})
      .Op(kOpStore, {32, 36})
      .Op(kOpLoad, {9, 37, 32})
      .Op(kOpCooperativeMatrixMulAddNV, {9, 38, 34, 35, 37})
      .Op(kOpCooperativeMatrixStoreNV, {33, 38, 7, 12})
      .Op(253, {})  // OpReturn
      .Op(kOpFunctionEnd, {});
  return a.words();
}

// What a test reads of a module: each instruction by its result id, the
// constants' values and the KHR matrix types' uses.
struct Reading {
  Module module;
  std::map<uint32_t, Instruction> by_result;  // types by word 1, values by word 2
  std::map<uint32_t, uint32_t> constants;
  std::map<uint32_t, uint32_t> matrix_use;
  std::vector<Instruction> of(uint32_t opcode) const {
    std::vector<Instruction> found;
    for (const Instruction& in : module.instructions) {
      if (in.opcode() == opcode) found.push_back(in);
    }
    return found;
  }
};

Reading Read(const std::vector<uint32_t>& words) {
  Reading r;
  absl::StatusOr<Module> m = ParseModule(words);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return r;
  r.module = *m;
  for (const Instruction& in : r.module.instructions) {
    if (IsTypeDeclaration(in.opcode())) {
      r.by_result[in[1]] = in;
    } else if (!IsPreamble(in.opcode()) && in.size() > 2 && r.by_result.count(in[1]) &&
               IsTypeDeclaration(r.by_result[in[1]].opcode())) {
      r.by_result[in[2]] = in;  // a value: its type is word 1
    }
    if (in.opcode() == kOpConstant) r.constants[in[2]] = in[3];
  }
  for (const Instruction& in : r.module.instructions) {
    if (in.opcode() == kOpTypeCooperativeMatrixKHR) r.matrix_use[in[1]] = r.constants[in[6]];
  }
  return r;
}

TEST(CoopmatKhrRewriteTest, SplitsATypeByUseAndRewritesEveryInstruction) {
  const std::vector<uint32_t> nv = SmallModule(false);
  absl::StatusOr<std::vector<uint32_t>> khr = RewriteCoopmatNvToKhr(nv);
  ASSERT_TRUE(khr.ok()) << khr.status();
  ASSERT_TRUE(CheckCoopmatKhrModule(*khr).ok()) << CheckCoopmatKhrModule(*khr);
  const Reading r = Read(*khr);
  EXPECT_GT(r.module.bound, 40u);

  // fp16 as A and as B, fp32 as the accumulator: three types.
  ASSERT_EQ(r.matrix_use.size(), 3u);
  const uint32_t a_type = r.by_result.at(34)[1], b_type = r.by_result.at(35)[1];
  EXPECT_EQ(r.matrix_use.at(a_type), kMatrixA);
  EXPECT_EQ(r.matrix_use.at(b_type), kMatrixB);
  EXPECT_EQ(r.by_result.at(a_type)[2], 3u);  // both fp16
  EXPECT_EQ(r.by_result.at(b_type)[2], 3u);
  const uint32_t acc_type = r.by_result.at(36)[1];
  EXPECT_EQ(r.matrix_use.at(acc_type), kMatrixAccumulator);
  EXPECT_EQ(r.by_result.at(37)[1], acc_type);  // through the variable
  EXPECT_EQ(r.by_result.at(r.by_result.at(32)[1])[3], acc_type);

  // The constant accumulator became a copy of the accumulator type.
  const std::vector<Instruction> mul_adds = r.of(kOpCooperativeMatrixMulAddKHR);
  ASSERT_EQ(mul_adds.size(), 2u);
  EXPECT_NE(mul_adds[0][5], 20u);
  EXPECT_EQ(r.by_result.at(mul_adds[0][5])[1], acc_type);

  // Loads: pointer, layout, stride; NV's false / true are row / column major.
  const std::vector<Instruction> loads = r.of(kOpCooperativeMatrixLoadKHR);
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(r.constants.at(loads[0][4]), kRowMajor);
  EXPECT_EQ(r.constants.at(loads[1][4]), kColumnMajor);
  EXPECT_EQ(loads[0][5], 7u);
  const std::vector<Instruction> stores = r.of(kOpCooperativeMatrixStoreKHR);
  ASSERT_EQ(stores.size(), 1u);
  EXPECT_EQ(r.constants.at(stores[0][3]), kRowMajor);
  EXPECT_EQ(stores[0][4], 7u);

  // The name of the split type names both halves.
  EXPECT_EQ(r.of(kOpName).size(), 2u);
  ASSERT_EQ(r.of(kOpExtension).size(), 1u);
  EXPECT_EQ(LiteralString(r.of(kOpExtension)[0], 1), "SPV_KHR_cooperative_matrix");
}

TEST(CoopmatKhrRewriteTest, RefusesAValueOfTwoUses) {
  absl::StatusOr<std::vector<uint32_t>> khr = RewriteCoopmatNvToKhr(SmallModule(true));
  ASSERT_FALSE(khr.ok());
  EXPECT_THAT(khr.status().message(), testing::HasSubstr("would be both matrix A and matrix B"));
}

TEST(CoopmatKhrRewriteTest, RefusesModulesWithoutNvMatrices) {
  std::vector<uint32_t> words = SmallModule(false);
  // The capability is the module's third instruction, words 9 and 10.
  ASSERT_EQ(words[10], kCapabilityCooperativeMatrixNV);
  words[10] = 5;  // Kernel
  EXPECT_FALSE(RewriteCoopmatNvToKhr(words).ok());
  EXPECT_FALSE(RewriteCoopmatNvToKhr(std::vector<uint32_t>{1, 2, 3}).ok());
}

TEST(CoopmatKhrCheckTest, RefusesNvModulesAndWrongUses) {
  const std::vector<uint32_t> nv = SmallModule(false);
  EXPECT_FALSE(CheckCoopmatKhrModule(nv).ok());
  absl::StatusOr<std::vector<uint32_t>> khr = RewriteCoopmatNvToKhr(nv);
  ASSERT_TRUE(khr.ok());
  // Swapping a multiply-add's A and B gives B, A operands.
  absl::StatusOr<Module> m = ParseModule(*khr);
  ASSERT_TRUE(m.ok());
  for (Instruction& in : m->instructions) {
    if (in.opcode() == kOpCooperativeMatrixMulAddKHR) std::swap(in.words[3], in.words[4]);
  }
  const absl::Status swapped = CheckCoopmatKhrModule(SerializeModule(*m));
  EXPECT_THAT(swapped.message(), testing::HasSubstr("not A, B, C -> C"));
}

// The embedded kernels: every tensor-core shader (not its "_emu" emulation)
// has a "_khr" form, which is the rewrite of it and passes the checks.
std::vector<std::string> CoopmatShaders() {
  std::vector<std::string> names;
  for (std::string_view name : shaders::Names()) {
    if (name.find("_cm_") != std::string_view::npos && !name.ends_with("_emu") &&
        !name.ends_with("_khr")) {
      names.emplace_back(name);
    }
  }
  return names;
}

TEST(CoopmatKhrShadersTest, EveryTensorCoreShaderHasItsKhrForm) {
  const std::vector<std::string> names = CoopmatShaders();
  // The GEMM tiles and the flash attention variants, at the least.
  ASSERT_GE(names.size(), 20u);
  std::set<std::string> khr;
  for (std::string_view name : shaders::Names()) {
    if (name.ends_with("_khr")) khr.emplace(name);
  }
  EXPECT_EQ(khr.size(), names.size());
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const std::span<const uint32_t> nv = shaders::Find(name);
    const std::span<const uint32_t> embedded = shaders::Find(name + "_khr");
    ASSERT_FALSE(embedded.empty());
    absl::StatusOr<std::vector<uint32_t>> made = RewriteCoopmatNvToKhr(nv);
    ASSERT_TRUE(made.ok()) << made.status();
    EXPECT_TRUE(std::equal(made->begin(), made->end(), embedded.begin(), embedded.end()));
  }
}

TEST(CoopmatKhrShadersTest, TensorCoreShadersAreKnownByTheirCapability) {
  // The planner asks for 32-wide subgroups for exactly these
  // (runtime/kernels/tensor_cores.h).
  const std::vector<std::string> names = CoopmatShaders();
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(shaders::UsesCooperativeMatrix(shaders::Find(name)));
    EXPECT_TRUE(shaders::UsesCooperativeMatrix(shaders::Find(name + "_khr")));
    EXPECT_FALSE(shaders::UsesCooperativeMatrix(shaders::Find(name + "_emu")));
  }
  EXPECT_FALSE(shaders::UsesCooperativeMatrix(shaders::Find("ops/relu")));
  EXPECT_FALSE(shaders::UsesCooperativeMatrix({}));
}

TEST(CoopmatKhrShadersTest, KhrFormsAreWellFormed) {
  const std::vector<std::string> names = CoopmatShaders();
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const std::span<const uint32_t> span = shaders::Find(name + "_khr");
    const std::vector<uint32_t> words(span.begin(), span.end());
    ASSERT_FALSE(words.empty());
    EXPECT_TRUE(CheckCoopmatKhrModule(words).ok()) << CheckCoopmatKhrModule(words);

    // Read directly too, not only through the checker.
    const Reading r = Read(words);
    bool capability = false;
    for (const Instruction& in : r.module.instructions) {
      EXPECT_FALSE(in.opcode() >= kOpTypeCooperativeMatrixNV &&
                   in.opcode() <= kOpCooperativeMatrixLengthNV);
      if (in.opcode() == kOpCapability) {
        EXPECT_NE(in[1], kCapabilityCooperativeMatrixNV);
        capability |= in[1] == kCapabilityCooperativeMatrixKHR;
      }
      for (size_t w = 1; w < in.size() && in.opcode() >= kOpTypeCooperativeMatrixKHR &&
                         in.opcode() <= kOpCooperativeMatrixLengthKHR;
           ++w) {
        EXPECT_LT(in[w], r.module.bound);
      }
    }
    EXPECT_TRUE(capability);
    // fp16 A and B, fp32 accumulators: the kernels' one shape family.
    std::set<uint32_t> uses;
    for (const auto& [type, use] : r.matrix_use) uses.insert(use);
    EXPECT_EQ(uses, (std::set<uint32_t>{kMatrixA, kMatrixB, kMatrixAccumulator}));
    for (const Instruction& in : r.of(kOpCooperativeMatrixMulAddKHR)) {
      EXPECT_EQ(r.matrix_use.at(r.by_result.at(in[3])[1]), kMatrixA);
      EXPECT_EQ(r.matrix_use.at(r.by_result.at(in[4])[1]), kMatrixB);
      EXPECT_EQ(r.matrix_use.at(r.by_result.at(in[5])[1]), kMatrixAccumulator);
    }
    for (const Instruction& in : r.of(kOpCooperativeMatrixLoadKHR)) {
      EXPECT_LE(r.constants.at(in[4]), kColumnMajor);
    }
  }
}

}  // namespace
}  // namespace vkserve::spirv
