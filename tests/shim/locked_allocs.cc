// SPDX-License-Identifier: GPL-2.0-or-later
// Preloaded into the shim by tests/shim/locked_allocs.py: counts the heap
// allocations a thread makes between sm_locked_allocs_begin() and
// sm_locked_allocs_end(), which the shim's lock_slurmctld()/
// unlock_slurmctld() stand-ins call around the collectors' holds. Every
// allocation entry point forwards to glibc's own (__libc_*), so nothing
// else changes; operator new reaches malloc through libstdc++.
#include <cerrno>
#include <cstddef>

extern "C" {

void* __libc_malloc(size_t) noexcept;
void* __libc_calloc(size_t, size_t) noexcept;
void* __libc_realloc(void*, size_t) noexcept;
void* __libc_memalign(size_t, size_t) noexcept;

namespace {
[[gnu::tls_model("initial-exec")]] thread_local bool counting = false;
[[gnu::tls_model("initial-exec")]] thread_local long counted = 0;

inline void count() {
  if (counting) ++counted;
}
}  // namespace

[[gnu::visibility("default")]] void sm_locked_allocs_begin() {
  counted = 0;
  counting = true;
}

[[gnu::visibility("default")]] long sm_locked_allocs_end() {
  counting = false;
  return counted;
}

[[gnu::visibility("default")]] void* malloc(size_t n) noexcept {
  count();
  return __libc_malloc(n);
}

[[gnu::visibility("default")]] void* calloc(size_t n, size_t size) noexcept {
  count();
  return __libc_calloc(n, size);
}

[[gnu::visibility("default")]] void* realloc(void* p, size_t n) noexcept {
  count();
  return __libc_realloc(p, n);
}

[[gnu::visibility("default")]] void* memalign(size_t align, size_t n) noexcept {
  count();
  return __libc_memalign(align, n);
}

[[gnu::visibility("default")]] void* aligned_alloc(size_t align, size_t n) noexcept {
  count();
  return __libc_memalign(align, n);
}

[[gnu::visibility("default")]] int posix_memalign(void** out, size_t align,
                                                  size_t n) noexcept {
  count();
  void* p = __libc_memalign(align, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

}  // extern "C"
