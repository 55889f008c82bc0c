// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "shaders/khr/coopmat_khr_check.h"

#include <string_view>
#include <unordered_map>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "shaders/khr/spirv_module.h"

namespace vkserve::spirv {
namespace {

struct MatrixType {
  uint32_t component = 0, rows = 0, cols = 0, use = 0;
};

absl::Status Fail(size_t inst, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrFormat("instruction %u: %s", inst, what));
}

class Checker {
 public:
  explicit Checker(const Module& m) : m_(m) {}

  absl::Status Run() {
    bool capability = false, extension = false;
    for (size_t i = 0; i < m_.instructions.size(); ++i) {
      const Instruction& in = m_.instructions[i];
      const uint32_t op = in.opcode();
      if (op >= kOpTypeCooperativeMatrixNV && op <= kOpCooperativeMatrixLengthNV) {
        return Fail(i, absl::StrFormat("NV cooperative-matrix opcode %u left", op));
      }
      if (op == kOpCapability && in.size() > 1) {
        if (in[1] == kCapabilityCooperativeMatrixNV) return Fail(i, "CooperativeMatrixNV left");
        capability |= in[1] == kCapabilityCooperativeMatrixKHR;
      }
      if (op == kOpExtension) {
        const std::string name = LiteralString(in, 1);
        if (name == "SPV_NV_cooperative_matrix") return Fail(i, "SPV_NV_cooperative_matrix left");
        extension |= name == "SPV_KHR_cooperative_matrix";
      }
      RETURN_IF_ERROR(Record(i, in));
    }
    if (!capability) return absl::InvalidArgumentError("no CooperativeMatrixKHR capability");
    if (!extension) return absl::InvalidArgumentError("no SPV_KHR_cooperative_matrix extension");
    if (matrices_.empty()) return absl::InvalidArgumentError("no OpTypeCooperativeMatrixKHR");
    for (size_t i = 0; i < m_.instructions.size(); ++i) RETURN_IF_ERROR(Check(i));
    return absl::OkStatus();
  }

 private:
  absl::Status Below(size_t inst, std::initializer_list<uint32_t> ids) const {
    for (uint32_t id : ids) {
      if (id == 0 || id >= m_.bound) {
        return Fail(inst, absl::StrFormat("id %u is not in (0, bound %u)", id, m_.bound));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<uint32_t> Constant(size_t inst, uint32_t id) const {
    auto it = constants_.find(id);
    if (it == constants_.end()) {
      return Fail(inst, absl::StrFormat("%%%u is not a 32-bit OpConstant", id));
    }
    return it->second;
  }

  absl::Status Record(size_t i, const Instruction& in) {
    const uint32_t op = in.opcode();
    if (IsTypeDeclaration(op)) {
      if (in.size() < 2) return Fail(i, "short type declaration");
      RETURN_IF_ERROR(Below(i, {in[1]}));
      if (types_.count(in[1])) return Fail(i, absl::StrFormat("%%%u declared twice", in[1]));
      types_[in[1]] = i;
      if (op == kOpTypeCooperativeMatrixKHR) {
        if (in.size() != 7) return Fail(i, "OpTypeCooperativeMatrixKHR takes 6 operands");
        RETURN_IF_ERROR(Below(i, {in[2], in[3], in[4], in[5], in[6]}));
        MatrixType t;
        t.component = in[2];
        ASSIGN_OR_RETURN(t.rows, Constant(i, in[4]));
        ASSIGN_OR_RETURN(t.cols, Constant(i, in[5]));
        ASSIGN_OR_RETURN(t.use, Constant(i, in[6]));
        if (t.use > kMatrixAccumulator) return Fail(i, absl::StrFormat("bad Use %u", t.use));
        matrices_[in[1]] = t;
      }
      if (op == kOpTypePointer && in.size() == 4) pointee_[in[1]] = in[3];
      return absl::OkStatus();
    }
    if (op == kOpConstant && in.size() == 4) constants_[in[2]] = in[3];
    if (!IsPreamble(op) && in.size() > 2 && types_.count(in[1])) {
      RETURN_IF_ERROR(Below(i, {in[2]}));
      type_of_[in[2]] = in[1];
      if (op == kOpFunctionParameter) params_[function_].push_back(in[1]);
      if (op == kOpFunction) function_ = in[2];
    }
    return absl::OkStatus();
  }

  uint32_t TypeOf(uint32_t id) const {
    auto it = type_of_.find(id);
    return it == type_of_.end() ? 0 : it->second;
  }
  uint32_t Pointee(uint32_t pointer_type) const {
    auto it = pointee_.find(pointer_type);
    return it == pointee_.end() ? 0 : it->second;
  }
  // Whether `type` is, or points to, a KHR matrix (the flows checked).
  bool Matrixy(uint32_t type) const {
    return matrices_.count(type) != 0 || matrices_.count(Pointee(type)) != 0;
  }
  absl::StatusOr<MatrixType> MatrixOf(size_t inst, uint32_t value) const {
    auto it = matrices_.find(TypeOf(value));
    if (it == matrices_.end()) {
      return Fail(inst, absl::StrFormat("%%%u is not a KHR cooperative matrix", value));
    }
    return it->second;
  }
  absl::Status Same(size_t inst, uint32_t a, uint32_t b) const {
    if (!Matrixy(a) && !Matrixy(b)) return absl::OkStatus();
    if (a != b) return Fail(inst, absl::StrFormat("matrix types %%%u and %%%u differ", a, b));
    return absl::OkStatus();
  }
  absl::Status Layout(size_t inst, uint32_t id) const {
    ASSIGN_OR_RETURN(const uint32_t layout, Constant(inst, id));
    if (layout > kColumnMajor) return Fail(inst, absl::StrFormat("bad MemoryLayout %u", layout));
    return absl::OkStatus();
  }

  absl::Status Check(size_t i) {
    const Instruction& in = m_.instructions[i];
    switch (in.opcode()) {
      case kOpCooperativeMatrixLoadKHR:
        if (in.size() < 6) return Fail(i, "OpCooperativeMatrixLoadKHR without a stride");
        RETURN_IF_ERROR(Below(i, {in[1], in[2], in[3], in[4], in[5]}));
        RETURN_IF_ERROR(MatrixOf(i, in[2]).status());
        return Layout(i, in[4]);
      case kOpCooperativeMatrixStoreKHR:
        if (in.size() < 5) return Fail(i, "OpCooperativeMatrixStoreKHR without a stride");
        RETURN_IF_ERROR(Below(i, {in[1], in[2], in[3], in[4]}));
        RETURN_IF_ERROR(MatrixOf(i, in[2]).status());
        return Layout(i, in[3]);
      case kOpCooperativeMatrixMulAddKHR: {
        if (in.size() != 6) return Fail(i, "float OpCooperativeMatrixMulAddKHR takes no operands");
        RETURN_IF_ERROR(Below(i, {in[1], in[2], in[3], in[4], in[5]}));
        ASSIGN_OR_RETURN(const MatrixType a, MatrixOf(i, in[3]));
        ASSIGN_OR_RETURN(const MatrixType b, MatrixOf(i, in[4]));
        ASSIGN_OR_RETURN(const MatrixType c, MatrixOf(i, in[5]));
        ASSIGN_OR_RETURN(const MatrixType r, MatrixOf(i, in[2]));
        if (a.use != kMatrixA || b.use != kMatrixB || c.use != kMatrixAccumulator ||
            r.use != kMatrixAccumulator) {
          return Fail(i, absl::StrFormat("multiply-add uses %u, %u, %u -> %u, not A, B, C -> C",
                                         a.use, b.use, c.use, r.use));
        }
        if (a.rows != c.rows || b.cols != c.cols || a.cols != b.rows || r.rows != c.rows ||
            r.cols != c.cols) {
          return Fail(i, absl::StrFormat("multiply-add shapes %ux%u * %ux%u + %ux%u", a.rows,
                                         a.cols, b.rows, b.cols, c.rows, c.cols));
        }
        return absl::OkStatus();
      }
      case kOpCooperativeMatrixLengthKHR:
        if (in.size() != 4 || !matrices_.count(in[3])) return Fail(i, "length of a non-matrix");
        return absl::OkStatus();
      case kOpLoad:
        return Same(i, in[1], Pointee(TypeOf(in[3])));
      case kOpStore:
        return Same(i, Pointee(TypeOf(in[1])), TypeOf(in[2]));
      case kOpCopyObject:
        return Same(i, in[1], TypeOf(in[3]));
      case kOpSelect:
        RETURN_IF_ERROR(Same(i, in[1], TypeOf(in[4])));
        return Same(i, in[1], TypeOf(in[5]));
      case kOpPhi:
        for (size_t w = 3; w < in.size(); w += 2) RETURN_IF_ERROR(Same(i, in[1], TypeOf(in[w])));
        return absl::OkStatus();
      case kOpFunctionCall: {
        const auto& params = params_[in[3]];
        for (size_t k = 0; k < params.size() && k + 4 < in.size(); ++k) {
          RETURN_IF_ERROR(Same(i, params[k], TypeOf(in[4 + k])));
        }
        return absl::OkStatus();
      }
      default:
        return absl::OkStatus();
    }
  }

  const Module& m_;
  std::unordered_map<uint32_t, size_t> types_;
  std::unordered_map<uint32_t, MatrixType> matrices_;
  std::unordered_map<uint32_t, uint32_t> pointee_, constants_, type_of_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> params_;
  uint32_t function_ = 0;
};

}  // namespace

absl::Status CheckCoopmatKhrModule(std::span<const uint32_t> words) {
  ASSIGN_OR_RETURN(const Module module, ParseModule(words));
  return Checker(module).Run();
}

}  // namespace vkserve::spirv
