// SPDX-License-Identifier: GPL-2.0-or-later
// The event loop's eventfd (http/loop.h): a worker that finished a
// response, or Stop(), wakes the loop out of epoll_wait through it.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace sm {
namespace http_loop {

class Waker {
 public:
  // false (errno set) when no eventfd could be made.
  bool Open() {
    fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return fd_ >= 0;
  }
  int fd() const { return fd_; }
  // Any thread; a no-op once closed (workers are joined before Close).
  void Wake() {
    if (fd_ < 0) return;
    const uint64_t one = 1;
    (void)!write(fd_, &one, sizeof one);
  }
  // The loop, woken: resets the counter.
  void Drain() {
    uint64_t v;
    (void)!read(fd_, &v, sizeof v);
  }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

}  // namespace http_loop
}  // namespace sm
