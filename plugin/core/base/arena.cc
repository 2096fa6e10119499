// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/arena.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace sm {

char* Arena::Allocate(size_t n) {
  if (n > left_) {
    // Oversized strings (a 1 MB reason) get a chunk of their own so the
    // current chunk's remainder is not wasted.
    const size_t size = n > chunk_size_ / 4 ? n : chunk_size_;
    chunks_.emplace_back(size);
    bytes_reserved_ += size;
    if (size != chunk_size_) return chunks_.back().data();
    cursor_ = chunks_.back().data();
    left_ = size;
  }
  char* p = cursor_;
  cursor_ += n;
  left_ -= n;
  return p;
}

void Arena::Reserve(size_t n) {
  if (n <= left_) return;
  const size_t size = std::max(n, chunk_size_);
  chunks_.emplace_back(size);
  // Touch every page now, not under the locks.
  std::memset(chunks_.back().data(), 0, size);
  bytes_reserved_ += size;
  cursor_ = chunks_.back().data();
  left_ = size;
}

std::string_view Arena::Store(std::string_view s) {
  if (s.empty()) return {};
  char* p = Allocate(s.size());
  std::memcpy(p, s.data(), s.size());
  return {p, s.size()};
}

std::string_view Arena::StoreCString(const char* s) {
  return s ? Store(std::string_view(s)) : std::string_view();
}

std::string_view Arena::StoreInt(int64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return Store(std::string_view(buf, res.ptr - buf));
}

}  // namespace sm
