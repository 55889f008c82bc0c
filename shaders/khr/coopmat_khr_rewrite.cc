// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "shaders/khr/coopmat_khr_rewrite.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "shaders/khr/spirv_module.h"

namespace vkserve::spirv {
namespace {

constexpr std::string_view kNvExtension = "SPV_NV_cooperative_matrix";
constexpr std::string_view kKhrExtension = "SPV_KHR_cooperative_matrix";
constexpr int kNoUse = -1;

const char* UseName(int use) {
  switch (use) {
    case kMatrixA:
      return "matrix A";
    case kMatrixB:
      return "matrix B";
    case kMatrixAccumulator:
      return "accumulator";
    default:
      return "no use";
  }
}

bool IsUnaryCarrier(uint32_t op) {
  switch (op) {
    case kOpConvertFToU:
    case kOpConvertFToS:
    case kOpConvertSToF:
    case kOpConvertUToF:
    case kOpUConvert:
    case kOpSConvert:
    case kOpFConvert:
    case kOpBitcast:
    case kOpSNegate:
    case kOpFNegate:
    case kOpCopyObject:
      return true;
    default:
      return false;
  }
}

bool IsBinaryCarrier(uint32_t op) {
  switch (op) {
    case kOpIAdd:
    case kOpFAdd:
    case kOpISub:
    case kOpFSub:
    case kOpIMul:
    case kOpFMul:
    case kOpUDiv:
    case kOpSDiv:
    case kOpFDiv:
    case kOpMatrixTimesScalar:
      return true;
    default:
      return false;
  }
}

// The words of an instruction the analysis does not know that may name ids
// (literals elsewhere could be mistaken for a matrix value's id).
std::pair<size_t, size_t> IdWords(const Instruction& inst) {
  switch (inst.opcode()) {
    case 12:  // OpExtInst: set and instruction number are not values
      return {5, inst.size()};
    case 79:   // OpVectorShuffle: components are literals
      return {3, std::min<size_t>(5, inst.size())};
    case 251:  // OpSwitch: the selector, then literal-label pairs
      return {1, 2};
    case kOpLine:
    case 246:  // OpLoopMerge
    case 247:  // OpSelectionMerge
    case 248:  // OpLabel
    case 249:  // OpBranch
    case 250:  // OpBranchConditional
      return {0, 0};
    default:
      return {1, inst.size()};
  }
}

class Rewriter {
 public:
  explicit Rewriter(Module module) : m_(std::move(module)) {}

  absl::StatusOr<std::vector<uint32_t>> Run() {
    RETURN_IF_ERROR(Scan());
    RETURN_IF_ERROR(Analyze());
    RETURN_IF_ERROR(Prepare());
    return Emit();
  }

 private:
  // One operand of a matrix constant (or undef) that is copied per use: the
  // use is `fixed`, or the use of `anchor`'s value.
  struct ConstantEdge {
    size_t inst, word;
    uint32_t anchor;
    int fixed;
  };

  bool IsCm(uint32_t id) const { return id < m_.bound && type_of_[id] != 0; }
  bool IsCmType(uint32_t id) const { return id < m_.bound && cm_type_[id]; }
  bool IsPoly(uint32_t id) const { return poly_.count(id) != 0; }
  // Whether `in` declares a matrix constant or undef copied per use.
  bool DeclaresPoly(const Instruction& in) const {
    const uint32_t op = in.opcode();
    return (op == kOpConstantComposite || op == kOpConstantNull || op == kOpUndef ||
            op == kOpSpecConstantComposite) &&
           in.size() > 2 && IsPoly(in[2]);
  }

  uint32_t Find(uint32_t id) {
    while (parent_[id] != id) id = parent_[id] = parent_[parent_[id]];
    return id;
  }

  absl::Status Conflict(uint32_t id, int a, int b, size_t inst) const {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cooperative matrix %%%u (instruction %u, opcode %u) would be both %s and %s: "
        "a KHR matrix has one use",
        id, inst, m_.instructions[inst].opcode(), UseName(a), UseName(b)));
  }

  absl::Status SetUse(uint32_t id, int use, size_t inst) {
    const uint32_t root = Find(id);
    if (use_[root] != kNoUse && use_[root] != use) return Conflict(id, use_[root], use, inst);
    use_[root] = use;
    return absl::OkStatus();
  }

  absl::Status Union(uint32_t a, uint32_t b, size_t inst) {
    const uint32_t ra = Find(a), rb = Find(b);
    if (ra == rb) return absl::OkStatus();
    if (use_[ra] != kNoUse && use_[rb] != kNoUse && use_[ra] != use_[rb]) {
      return Conflict(a, use_[ra], use_[rb], inst);
    }
    if (use_[ra] == kNoUse) use_[ra] = use_[rb];
    parent_[rb] = ra;
    return absl::OkStatus();
  }

  // The matrix value in operand `word` of instruction `inst` has the use of
  // `other` (a value, never a copied constant).
  absl::Status Flow(size_t inst, size_t word, uint32_t other) {
    const Instruction& in = m_.instructions[inst];
    if (word >= in.size() || !IsCm(in[word]) || !IsCm(other)) return absl::OkStatus();
    if (IsPoly(in[word])) {
      edges_.push_back({inst, word, other, kNoUse});
      return absl::OkStatus();
    }
    return Union(in[word], other, inst);
  }

  absl::Status Need(size_t inst, size_t word, int use) {
    const uint32_t id = m_.instructions[inst][word];
    if (!IsCm(id)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "operand %%%u of instruction %u is not a cooperative matrix", id, inst));
    }
    if (IsPoly(id)) {
      edges_.push_back({inst, word, 0, use});
      return absl::OkStatus();
    }
    return SetUse(id, use, inst);
  }

  // A value no multiply-add reaches (a dead variable) takes a use its matrix
  // type already has, so that no type is made for it alone.
  int UseOf(uint32_t id) {
    const int use = use_[Find(id)];
    if (use != kNoUse) return use;
    auto it = default_use_.find(BaseMatrix(type_of_[id]));
    return it == default_use_.end() ? static_cast<int>(kMatrixAccumulator) : it->second;
  }

  // The NV matrix type that `type` (a matrix, or pointers and arrays of one)
  // holds; 0 for others.
  uint32_t BaseMatrix(uint32_t type) const {
    while (type != 0 && type < m_.bound && cm_type_[type]) {
      auto it = type_decl_.find(type);
      if (it == type_decl_.end()) return 0;
      const Instruction& decl = m_.instructions[it->second];
      switch (decl.opcode()) {
        case kOpTypeCooperativeMatrixNV:
          return type;
        case kOpTypeArray:
        case kOpTypeRuntimeArray:
          type = decl[2];
          break;
        case kOpTypePointer:
          type = decl[3];
          break;
        default:
          return 0;
      }
    }
    return 0;
  }

  // Finds the matrix types, the values of those types, the copied constants,
  // the bool constants and every function's parameters.
  absl::Status Scan() {
    cm_type_.assign(m_.bound, false);
    type_of_.assign(m_.bound, 0);
    bool nv_capability = false, in_function = false;
    uint32_t function = 0;
    for (const Instruction& in : m_.instructions) {
      const uint32_t op = in.opcode();
      if (op == kOpCapability && in.size() > 1 && in[1] == kCapabilityCooperativeMatrixNV) {
        nv_capability = true;
      }
      if (IsTypeDeclaration(op)) {
        if (in.size() < 2 || in[1] >= m_.bound) {
          return absl::InvalidArgumentError("a type id is not below the module's bound");
        }
        cm_type_[in[1]] = TypeContainsMatrix(in);
        if (op == kOpTypeCooperativeMatrixNV && first_cm_type_ == SIZE_MAX) {
          first_cm_type_ = &in - m_.instructions.data();
          if (in.size() != 6) {
            return absl::InvalidArgumentError("malformed OpTypeCooperativeMatrixNV");
          }
          rows_constant_ = in[4];
        }
        continue;
      }
      if (op == kOpConstantTrue || op == kOpConstantFalse) bools_[in[2]] = op == kOpConstantTrue;
      if (op == kOpConstant && in.size() == 4) constants_[in[2]] = {in[1], in[3]};
      if (op == kOpFunction) {
        in_function = true;
        function = in[2];
        params_[function];
      }
      if (op == kOpFunctionParameter) params_[function].push_back(in[2]);
      if (op == kOpFunctionEnd) in_function = false;
      if (IsPreamble(op) || in.size() < 3 || !IsCmType(in[1])) continue;
      if (in[2] >= m_.bound) return absl::InvalidArgumentError("an id is not below the bound");
      type_of_[in[2]] = in[1];
      if (!in_function && (op == kOpConstantComposite || op == kOpConstantNull ||
                           op == kOpUndef || op == kOpSpecConstantComposite)) {
        poly_.insert(in[2]);
      }
    }
    if (!nv_capability) {
      return absl::InvalidArgumentError(
          "the module does not declare the CooperativeMatrixNV capability");
    }
    if (first_cm_type_ == SIZE_MAX) {
      return absl::InvalidArgumentError("the module declares no OpTypeCooperativeMatrixNV");
    }
    auto rows = constants_.find(rows_constant_);
    if (rows == constants_.end()) {
      return absl::InvalidArgumentError("a matrix's row count is not an OpConstant");
    }
    int_type_ = rows->second.first;
    return absl::OkStatus();
  }

  bool TypeContainsMatrix(const Instruction& in) const {
    switch (in.opcode()) {
      case kOpTypeCooperativeMatrixNV:
        return true;
      case kOpTypeArray:
      case kOpTypeRuntimeArray:
        return IsCmType(in[2]);
      case kOpTypePointer:
        return IsCmType(in[3]);
      case kOpTypeStruct:
      case kOpTypeFunction:
        for (size_t w = 2; w < in.size(); ++w) {
          if (IsCmType(in[w])) return true;
        }
        return false;
      default:
        return false;
    }
  }

  absl::Status Analyze() {
    parent_.resize(m_.bound);
    for (uint32_t i = 0; i < m_.bound; ++i) parent_[i] = i;
    use_.assign(m_.bound, kNoUse);
    uint32_t function = 0;
    bool in_function = false;
    for (size_t i = 0; i < m_.instructions.size(); ++i) {
      const Instruction& in = m_.instructions[i];
      const uint32_t op = in.opcode();
      const uint32_t r = in.size() > 2 ? in[2] : 0;
      if (IsPreamble(op) || IsTypeDeclaration(op)) continue;
      switch (op) {
        case kOpFunction:
          function = r;
          in_function = true;
          break;
        case kOpFunctionEnd:
          in_function = false;
          break;
        case kOpFunctionParameter:
        case kOpCooperativeMatrixLoadNV:
        case kOpCooperativeMatrixLengthNV:
        case kOpConstantComposite:
        case kOpConstantNull:
        case kOpUndef:
        case kOpSpecConstantComposite:
          break;
        case kOpCooperativeMatrixStoreNV:
          if (!IsCm(in[2])) return absl::InvalidArgumentError("a matrix store of a non-matrix");
          break;
        case kOpLoad:
          RETURN_IF_ERROR(Flow(i, 3, r));
          break;
        case kOpStore:
        case kOpCopyMemory:
          RETURN_IF_ERROR(Flow(i, 2, in[1]));
          break;
        case kOpPhi:
          for (size_t w = 3; w < in.size(); w += 2) RETURN_IF_ERROR(Flow(i, w, r));
          break;
        case kOpSelect:
          RETURN_IF_ERROR(Flow(i, 4, r));
          RETURN_IF_ERROR(Flow(i, 5, r));
          break;
        case kOpAccessChain:
        case kOpInBoundsAccessChain:
        case kOpPtrAccessChain:
        case kOpCompositeExtract:
          RETURN_IF_ERROR(Flow(i, 3, r));
          break;
        case kOpCompositeInsert:
          RETURN_IF_ERROR(Flow(i, 3, r));
          RETURN_IF_ERROR(Flow(i, 4, r));
          break;
        case kOpCompositeConstruct:
          for (size_t w = 3; w < in.size(); ++w) RETURN_IF_ERROR(Flow(i, w, r));
          break;
        case kOpVariable:
          RETURN_IF_ERROR(Flow(i, 4, r));
          break;
        case kOpFunctionCall: {
          const std::vector<uint32_t>& params = params_[in[3]];
          if (params.size() + 4 != in.size()) {
            return absl::InvalidArgumentError(absl::StrFormat("call %%%u: argument count", r));
          }
          if (IsCm(r)) RETURN_IF_ERROR(Union(r, in[3], i));
          for (size_t k = 0; k < params.size(); ++k) RETURN_IF_ERROR(Flow(i, 4 + k, params[k]));
          break;
        }
        case kOpReturnValue:
          RETURN_IF_ERROR(Flow(i, 1, function));
          break;
        case kOpCooperativeMatrixMulAddNV:
          RETURN_IF_ERROR(Need(i, 3, kMatrixA));
          RETURN_IF_ERROR(Need(i, 4, kMatrixB));
          RETURN_IF_ERROR(Need(i, 5, kMatrixAccumulator));
          RETURN_IF_ERROR(SetUse(r, kMatrixAccumulator, i));
          break;
        default:
          if (IsUnaryCarrier(op)) {
            RETURN_IF_ERROR(Flow(i, 3, r));
          } else if (IsBinaryCarrier(op)) {
            RETURN_IF_ERROR(Flow(i, 3, r));
            RETURN_IF_ERROR(Flow(i, 4, r));
          } else if (in_function) {
            // Outside functions only constants and variables name values.
            const auto [first, last] = IdWords(in);
            for (size_t w = first; w < last; ++w) {
              if (IsCm(in[w])) {
                return absl::InvalidArgumentError(absl::StrFormat(
                    "instruction %u (opcode %u) acts on cooperative matrix %%%u, which the "
                    "NV-to-KHR rewrite does not support",
                    i, op, in[w]));
              }
            }
          }
      }
    }
    return absl::OkStatus();
  }

  uint32_t Fresh() { return m_.bound++; }

  // The id of the KHR form of matrix-holding type `type` for `use`; its
  // declaration goes where `type`'s was.
  absl::StatusOr<uint32_t> TypeFor(uint32_t type, int use) {
    const uint64_t key = (uint64_t{type} << 2) | static_cast<uint32_t>(use);
    if (auto it = type_clones_.find(key); it != type_clones_.end()) return it->second;
    const Instruction& decl = m_.instructions[type_decl_.at(type)];
    std::vector<uint32_t> words(decl.words.begin() + 1, decl.words.end());
    uint32_t opcode = decl.opcode();
    switch (opcode) {
      case kOpTypeCooperativeMatrixNV:
        opcode = kOpTypeCooperativeMatrixKHR;
        words.push_back(use_constants_[use]);
        break;
      case kOpTypeArray:
      case kOpTypeRuntimeArray: {
        ASSIGN_OR_RETURN(words[1], TypeFor(words[1], use));
        break;
      }
      case kOpTypePointer: {
        ASSIGN_OR_RETURN(words[2], TypeFor(words[2], use));
        break;
      }
      case kOpTypeStruct:
        for (size_t w = 1; w < words.size(); ++w) {
          if (IsCmType(words[w])) {
            ASSIGN_OR_RETURN(words[w], TypeFor(words[w], use));
          }
        }
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrFormat("type %%%u (opcode %u) holds a cooperative matrix the rewrite "
                            "cannot give a use",
                            type, opcode));
    }
    const uint32_t id = Fresh();
    words[0] = id;
    type_clones_[key] = id;
    clones_at_[type].push_back(MakeInstruction(opcode, std::move(words)));
    renamed_[type].push_back(id);
    uses_of_type_[type].insert(use);
    return id;
  }

  // The copy of matrix constant `id` for `use`.
  absl::StatusOr<uint32_t> ConstantFor(uint32_t id, int use) {
    const uint64_t key = (uint64_t{id} << 2) | static_cast<uint32_t>(use);
    if (auto it = constant_clones_.find(key); it != constant_clones_.end()) return it->second;
    const Instruction& decl = m_.instructions[constant_decl_.at(id)];
    std::vector<uint32_t> words(decl.words.begin() + 1, decl.words.end());
    ASSIGN_OR_RETURN(words[0], TypeFor(words[0], use));
    for (size_t w = 2; w < words.size(); ++w) {
      if (IsPoly(words[w])) {
        ASSIGN_OR_RETURN(words[w], ConstantFor(words[w], use));
      }
    }
    const uint32_t clone = Fresh();
    words[1] = clone;
    constant_clones_[key] = clone;
    clones_at_[id].push_back(MakeInstruction(decl.opcode(), std::move(words)));
    renamed_[id].push_back(clone);
    return clone;
  }

  // Rewrites every instruction in place and makes the types and constants
  // the rewritten ones name.
  absl::Status Prepare() {
    for (size_t i = 0; i < m_.instructions.size(); ++i) {
      const Instruction& in = m_.instructions[i];
      if (IsTypeDeclaration(in.opcode()) && cm_type_[in[1]]) type_decl_[in[1]] = i;
      if (DeclaresPoly(in)) constant_decl_[in[2]] = i;
    }
    for (uint32_t id = 0; id < type_of_.size(); ++id) {
      const int use = type_of_[id] != 0 ? use_[Find(id)] : kNoUse;
      if (use == kNoUse) continue;
      auto [it, added] = default_use_.emplace(BaseMatrix(type_of_[id]), use);
      if (!added) it->second = std::min(it->second, use);
    }
    for (int use = 0; use < 3; ++use) use_constants_[use] = Fresh();
    layout_constants_[0] = Fresh();
    layout_constants_[1] = Fresh();

    for (const ConstantEdge& e : edges_) {
      const int use = e.fixed != kNoUse ? e.fixed : UseOf(e.anchor);
      Instruction& in = m_.instructions[e.inst];
      ASSIGN_OR_RETURN(in.words[e.word], ConstantFor(in[e.word], use));
    }
    uint32_t function = 0;
    for (size_t i = 0; i < m_.instructions.size(); ++i) {
      Instruction& in = m_.instructions[i];
      const uint32_t op = in.opcode();
      if (IsPreamble(op) || IsTypeDeclaration(op)) continue;
      if (DeclaresPoly(in)) continue;  // replaced by its copies
      if (op == kOpFunction) function = in[2];
      if (in.size() > 2 && IsCmType(in[1])) {
        ASSIGN_OR_RETURN(in.words[1], TypeFor(in[1], UseOf(in[2])));
      }
      switch (op) {
        case kOpFunction:
          if (IsCmType(in[4])) {
            ASSIGN_OR_RETURN(in.words[4], FunctionType(in[4], function));
          }
          break;
        case kOpCooperativeMatrixLoadNV: {
          // type, result, pointer, stride, column-major[, memory access...]
          ASSIGN_OR_RETURN(const uint32_t layout, Layout(in[5], i));
          std::vector<uint32_t> words = {in[1], in[2], in[3], layout, in[4]};
          words.insert(words.end(), in.words.begin() + 6, in.words.end());
          in = MakeInstruction(kOpCooperativeMatrixLoadKHR, std::move(words));
          break;
        }
        case kOpCooperativeMatrixStoreNV: {
          // pointer, object, stride, column-major[, memory access...]
          ASSIGN_OR_RETURN(const uint32_t layout, Layout(in[4], i));
          std::vector<uint32_t> words = {in[1], in[2], layout, in[3]};
          words.insert(words.end(), in.words.begin() + 5, in.words.end());
          in = MakeInstruction(kOpCooperativeMatrixStoreKHR, std::move(words));
          break;
        }
        case kOpCooperativeMatrixMulAddNV:
          in.words[0] = (in.words[0] & 0xffff0000u) | kOpCooperativeMatrixMulAddKHR;
          break;
        case kOpCooperativeMatrixLengthNV: {
          // The length of a type: only a type of one use says which.
          const auto& uses = uses_of_type_[in[3]];
          if (uses.size() > 1) {
            return absl::InvalidArgumentError(absl::StrFormat(
                "OpCooperativeMatrixLengthNV of type %%%u, which serves several uses", in[3]));
          }
          ASSIGN_OR_RETURN(in.words[3],
                           TypeFor(in[3], uses.empty() ? int{kMatrixAccumulator} : *uses.begin()));
          in.words[0] = (in.words[0] & 0xffff0000u) | kOpCooperativeMatrixLengthKHR;
          break;
        }
        default:
          break;
      }
    }
    return absl::OkStatus();
  }

  // The function type of `function` (whose declared type `type` holds
  // matrices) with each matrix given its use there.
  absl::StatusOr<uint32_t> FunctionType(uint32_t type, uint32_t function) {
    const Instruction& decl = m_.instructions[type_decl_.at(type)];
    std::vector<uint32_t> words(decl.words.begin() + 1, decl.words.end());
    if (IsCmType(words[1])) {
      ASSIGN_OR_RETURN(words[1], TypeFor(words[1], UseOf(function)));
    }
    const std::vector<uint32_t>& params = params_[function];
    for (size_t k = 0; k < params.size() && k + 2 < words.size(); ++k) {
      if (IsCmType(words[k + 2])) {
        ASSIGN_OR_RETURN(words[k + 2], TypeFor(words[k + 2], UseOf(params[k])));
      }
    }
    for (const Instruction& made : clones_at_[type]) {
      if (std::equal(made.words.begin() + 2, made.words.end(), words.begin() + 1, words.end())) {
        return made[1];
      }
    }
    words[0] = Fresh();
    clones_at_[type].push_back(MakeInstruction(kOpTypeFunction, words));
    renamed_[type].push_back(words[0]);
    return words[0];
  }

  absl::StatusOr<uint32_t> Layout(uint32_t column_major, size_t inst) {
    auto it = bools_.find(column_major);
    if (it == bools_.end()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "instruction %u: the column-major operand %%%u is not an OpConstantTrue or "
          "OpConstantFalse (KHR takes the layout as a constant)",
          inst, column_major));
    }
    return layout_constants_[it->second ? kColumnMajor : kRowMajor];
  }

  absl::StatusOr<std::vector<uint32_t>> Emit() {
    std::vector<Instruction> out;
    out.reserve(m_.instructions.size() + 64);
    for (size_t i = 0; i < m_.instructions.size(); ++i) {
      Instruction& in = m_.instructions[i];
      const uint32_t op = in.opcode();
      if (op == kOpCapability && in[1] == kCapabilityCooperativeMatrixNV) {
        out.push_back(MakeInstruction(kOpCapability, {kCapabilityCooperativeMatrixKHR}));
        continue;
      }
      if (op == kOpExtension && LiteralString(in, 1) == kNvExtension) {
        out.push_back(MakeInstruction(kOpExtension, StringWords(kKhrExtension)));
        continue;
      }
      if (i == first_cm_type_) {
        for (int use = 0; use < 3; ++use) {
          out.push_back(MakeInstruction(
              kOpConstant, {int_type_, use_constants_[use], static_cast<uint32_t>(use)}));
        }
        for (uint32_t layout = 0; layout < 2; ++layout) {
          out.push_back(
              MakeInstruction(kOpConstant, {int_type_, layout_constants_[layout], layout}));
        }
      }
      const bool names = op == kOpName || op == kOpMemberName || op == kOpDecorate ||
                         op == kOpMemberDecorate || op == kOpDecorateId;
      if (names && in.size() > 1 && renamed_.count(in[1])) {
        for (uint32_t id : renamed_[in[1]]) {
          Instruction copy = in;
          copy.words[1] = id;
          out.push_back(std::move(copy));
        }
        continue;
      }
      const bool declares = IsTypeDeclaration(op) ? cm_type_[in[1]] : DeclaresPoly(in);
      if (declares) {
        const uint32_t id = IsTypeDeclaration(op) ? in[1] : in[2];
        for (Instruction& made : clones_at_[id]) out.push_back(std::move(made));
        continue;
      }
      out.push_back(std::move(in));
    }
    m_.instructions = std::move(out);
    return SerializeModule(m_);
  }

  Module m_;
  std::vector<bool> cm_type_;
  std::vector<uint32_t> type_of_;  // a matrix-holding value's type; 0 for others
  std::unordered_set<uint32_t> poly_;
  std::unordered_map<uint32_t, bool> bools_;
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> constants_;  // type, value
  std::unordered_map<uint32_t, std::vector<uint32_t>> params_;
  size_t first_cm_type_ = SIZE_MAX;
  uint32_t rows_constant_ = 0, int_type_ = 0;

  std::vector<uint32_t> parent_;
  std::vector<int> use_;
  std::vector<ConstantEdge> edges_;

  std::unordered_map<uint32_t, size_t> type_decl_, constant_decl_;
  std::array<uint32_t, 3> use_constants_{};
  std::array<uint32_t, 2> layout_constants_{};
  std::unordered_map<uint64_t, uint32_t> type_clones_, constant_clones_;
  std::map<uint32_t, std::vector<Instruction>> clones_at_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> renamed_;
  std::unordered_map<uint32_t, std::unordered_set<int>> uses_of_type_;
  std::unordered_map<uint32_t, int> default_use_;  // by NV matrix type
};

}  // namespace

absl::StatusOr<std::vector<uint32_t>> RewriteCoopmatNvToKhr(std::span<const uint32_t> words) {
  ASSIGN_OR_RETURN(Module module, ParseModule(words));
  return Rewriter(std::move(module)).Run();
}

}  // namespace vkserve::spirv
