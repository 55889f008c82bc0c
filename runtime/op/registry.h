// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Registry<T>: a table of stateless T (an Op, a Rewrite) by (domain, op
// type, opset range). Each T adds itself with one registration line at the
// end of its own file (VKSERVE_REGISTER_OP, VKSERVE_REGISTER_REWRITE), so no
// central switch names op types; the opset is the model's import of the
// node's domain. OpRegistry (UNIMPLEMENTED for a missing op) and
// RewriteRegistry (null for none) are Registry<Op> and Registry<Rewrite>.
//
// Registration happens during static initialization; afterwards a registry
// is read-only and thread-safe.
#ifndef VKSERVE_RUNTIME_OP_REGISTRY_H_
#define VKSERVE_RUNTIME_OP_REGISTRY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/ir/graph.h"

namespace vkserve {

template <typename T>
struct Registration {
  std::string domain;
  std::string op_type;
  int64_t min_opset = 1;
  int64_t max_opset = 1;
  std::unique_ptr<T> value;

  bool IsType(const Node& node) const { return domain == node.domain && op_type == node.op_type; }
  bool Matches(const Node& node) const {
    return IsType(node) && node.opset >= min_opset && node.opset <= max_opset;
  }
};

template <typename T>
class Registry {
 public:
  void Register(Registration<T> registration) { registrations_.push_back(std::move(registration)); }

  // The first registration for `node`'s domain, op type and opset, or null.
  const Registration<T>* Lookup(const Node& node) const {
    for (const Registration<T>& r : registrations_) {
      if (r.Matches(node)) return &r;
    }
    return nullptr;
  }

  // The last registration of `node`'s domain and op type at any opset, or
  // null: what to name when only the opset is off.
  const Registration<T>* LastOfType(const Node& node) const {
    const Registration<T>* found = nullptr;
    for (const Registration<T>& r : registrations_) {
      if (r.IsType(node)) found = &r;
    }
    return found;
  }

  const std::vector<Registration<T>>& registrations() const { return registrations_; }

 private:
  std::vector<Registration<T>> registrations_;
};

namespace internal {

// Adds one T to RegistryT::Global() during static initialization.
template <typename RegistryT, typename T>
struct Registrar {
  Registrar(const char* domain, const char* op_type, int64_t min_opset, int64_t max_opset,
            std::unique_ptr<T> value) {
    RegistryT::Global().Register({domain, op_type, min_opset, max_opset, std::move(value)});
  }
};

}  // namespace internal
}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_OP_REGISTRY_H_
