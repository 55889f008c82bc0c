// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/ir/tensor_bytes.h"

#include <algorithm>
#include <cstring>

namespace vkserve {

TensorBytes TensorBytes::View(std::shared_ptr<const void> owner, const uint8_t* data, size_t size) {
  TensorBytes b;
  b.owner_ = std::move(owner);
  b.view_ = data;
  b.view_size_ = size;
  return b;
}

std::vector<uint8_t> TensorBytes::Release() && {
  if (is_view()) return ToVector();
  return std::move(owned_);
}

std::vector<uint8_t>& TensorBytes::Own() {
  if (is_view()) {
    owned_.assign(view_, view_ + view_size_);
    owner_.reset();
    view_ = nullptr;
    view_size_ = 0;
  }
  return owned_;
}

void TensorBytes::Drop() {
  owner_.reset();
  view_ = nullptr;
  view_size_ = 0;
}

bool operator==(const TensorBytes& a, const TensorBytes& b) {
  return a.size() == b.size() && (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

std::ostream& operator<<(std::ostream& os, const TensorBytes& b) {
  os << b.size() << " bytes" << (b.is_view() ? " (view)" : "");
  return os;
}

}  // namespace vkserve
