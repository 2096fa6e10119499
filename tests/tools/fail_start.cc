// SPDX-License-Identifier: GPL-2.0-or-later
// Test-only, LD_PRELOADed into tests/tools/http_test_server by
// tests/http/test_listener.py (startfail): makes epoll_create1 or eventfd
// fail as they do out of descriptors or memory, to check that the listener
// says so and stays down instead of spinning. Never linked into the plugin.
//
//   SM_FAIL_START=epoll|eventfd
#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace {

bool Failing(const char* what) {
  const char* v = std::getenv("SM_FAIL_START");
  if (!v || std::strcmp(v, what) != 0) return false;
  // Tells the test the interposition took effect (a sanitizer runtime
  // may intercept the call first).
  static const char kSeen[] = "fail_start: failing the call\n";
  (void)!write(2, kSeen, sizeof kSeen - 1);
  return true;
}

}  // namespace

extern "C" int epoll_create1(int flags) {
  if (Failing("epoll")) {
    errno = EMFILE;
    return -1;
  }
  using Fn = int (*)(int);
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "epoll_create1"))(flags);
}

extern "C" int eventfd(unsigned int initval, int flags) {
  if (Failing("eventfd")) {
    errno = ENOMEM;
    return -1;
  }
  using Fn = int (*)(unsigned int, int);
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "eventfd"))(initval, flags);
}
