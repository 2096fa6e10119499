// SPDX-License-Identifier: GPL-2.0-or-later
// Bump allocator for strings copied out of slurmctld under its locks: one
// memcpy per string instead of one malloc, so lock hold time stays short.
// Views handed out stay valid until the arena is destroyed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/large_alloc.h"

namespace sm {

class Arena {
 public:
  explicit Arena(size_t chunk_size = 256 * 1024) : chunk_size_(chunk_size) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  Arena(Arena&&) = default;
  Arena& operator=(Arena&&) = default;

  char* Allocate(size_t n);
  // Makes the next `n` bytes of Store() calls come from memory allocated
  // (and touched) now, so that copies made later, under slurmctld's locks,
  // neither call malloc nor page-fault.
  void Reserve(size_t n);
  std::string_view Store(std::string_view s);
  // NULL C strings become "" (Slurm uses NULL for "unset").
  std::string_view StoreCString(const char* s);
  std::string_view StoreInt(int64_t v);

  size_t bytes_reserved() const { return bytes_reserved_; }
  // Reserved minus what the current chunk has left.
  size_t bytes_used() const { return bytes_reserved_ - left_; }

 private:
  size_t chunk_size_;
  std::vector<LargeBlock> chunks_;
  char* cursor_ = nullptr;
  size_t left_ = 0;
  size_t bytes_reserved_ = 0;
};

}  // namespace sm
