// SPDX-License-Identifier: GPL-2.0-or-later
// Memory for what every collection and render builds anew (snapshot
// strings, metric rows), taken from the kernel and given back to it when
// large. Through malloc, slurmctld would keep the peak of every render for
// good: glibc raises its mmap threshold to the largest block freed (up to
// 32 MB) and keeps freed heap memory in the arena for reuse.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace sm {

inline constexpr size_t kLargeAllocation = 64 * 1024;

// mmap() from kLargeAllocation bytes on, operator new below; throws
// std::bad_alloc. LargeFree() needs the size LargeAllocate() was given.
void* LargeAllocate(size_t bytes);
void LargeFree(void* p, size_t bytes) noexcept;

template <class T>
struct LargeAllocator {
  using value_type = T;
  LargeAllocator() = default;
  template <class U>
  LargeAllocator(const LargeAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(LargeAllocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { LargeFree(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const LargeAllocator<U>&) const noexcept { return true; }
};

// Vectors rebuilt every collection or render.
template <class T>
using Rows = std::vector<T, LargeAllocator<T>>;

// One block of LargeAllocate() memory, freed with its owner.
class LargeBlock {
 public:
  explicit LargeBlock(size_t bytes)
      : data_(static_cast<char*>(LargeAllocate(bytes))), size_(bytes) {}
  LargeBlock(LargeBlock&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(o.size_) {}
  LargeBlock& operator=(LargeBlock&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }
  ~LargeBlock() {
    if (data_) LargeFree(data_, size_);
  }
  char* data() const { return data_; }

 private:
  char* data_;
  size_t size_;
};

}  // namespace sm
