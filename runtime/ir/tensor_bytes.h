// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// TensorBytes: the bytes of a host tensor, either owned or a read-only view
// into a larger buffer that a shared owner keeps alive — a loaded `.ort`
// file, whose initializers then need no second copy. It reads like a
// std::vector<uint8_t>; anything that writes (the non-const accessors,
// resize, assign) first turns a view into an owned copy, so a view can
// never be written through.
//
// Like std::vector: one writer or many readers at a time. Views are cheap to
// copy (they share the owner).
#ifndef VKSERVE_RUNTIME_IR_TENSOR_BYTES_H_
#define VKSERVE_RUNTIME_IR_TENSOR_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <span>
#include <vector>

namespace vkserve {

class TensorBytes {
 public:
  TensorBytes() = default;
  TensorBytes(std::vector<uint8_t> bytes)
      : owned_(std::move(bytes)) {}  // NOLINT: implicit by design
  TensorBytes(std::initializer_list<uint8_t> bytes) : owned_(bytes) {}
  template <typename It>
  TensorBytes(It first, It last) : owned_(first, last) {}

  // A view of [data, data + size), valid while `owner` lives.
  // REQUIRES: `owner` keeps those bytes alive and unchanged.
  static TensorBytes View(std::shared_ptr<const void> owner, const uint8_t* data, size_t size);

  bool is_view() const { return owner_ != nullptr; }

  // Reading.
  const uint8_t* data() const { return is_view() ? view_ : owned_.data(); }
  size_t size() const { return is_view() ? view_size_ : owned_.size(); }
  bool empty() const { return size() == 0; }
  const uint8_t* begin() const { return data(); }
  const uint8_t* end() const { return data() + size(); }
  uint8_t operator[](size_t i) const { return data()[i]; }
  operator std::span<const uint8_t>() const { return {data(), size()}; }  // NOLINT
  std::vector<uint8_t> ToVector() const { return std::vector<uint8_t>(begin(), end()); }
  // Moves owned bytes out (copies a view).
  std::vector<uint8_t> Release() &&;

  // Writing: a view becomes an owned copy first.
  uint8_t* data() { return Own().data(); }
  uint8_t* begin() { return Own().data(); }
  uint8_t* end() { return Own().data() + owned_.size(); }
  uint8_t& operator[](size_t i) { return Own()[i]; }
  void resize(size_t n, uint8_t value = 0) { Own().resize(n, value); }
  void assign(size_t n, uint8_t value) {
    Drop();
    owned_.assign(n, value);
  }
  template <typename It>
  void assign(It first, It last) {
    std::vector<uint8_t> fresh(first, last);  // `first` may point into this view
    Drop();
    owned_ = std::move(fresh);
  }
  void clear() {
    Drop();
    owned_.clear();
  }

  friend bool operator==(const TensorBytes& a, const TensorBytes& b);
  friend std::ostream& operator<<(std::ostream& os, const TensorBytes& b);

 private:
  std::vector<uint8_t>& Own();
  void Drop();

  std::vector<uint8_t> owned_;
  std::shared_ptr<const void> owner_;  // set for a view
  const uint8_t* view_ = nullptr;
  size_t view_size_ = 0;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_IR_TENSOR_BYTES_H_
