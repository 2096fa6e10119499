// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/large_alloc.h"

#include <sys/mman.h>

#include <new>

namespace sm {

void* LargeAllocate(size_t bytes) {
  if (bytes < kLargeAllocation) return ::operator new(bytes);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void LargeFree(void* p, size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kLargeAllocation) {
    ::operator delete(p);
    return;
  }
  munmap(p, bytes);
}

}  // namespace sm
