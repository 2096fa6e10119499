// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

namespace sm {

// Names the calling thread (15 characters at most) so `top -H`, gdb and
// tracing tell our threads from slurmctld's own.
inline void NameThisThread(const char* name) {
  pthread_setname_np(pthread_self(), name);
}

// Our threads that never hold a controller lock (HTTP workers, rendering)
// yield the CPU to slurmctld's threads and to our collectors: on a busy
// controller a scrape storm must not preempt a collector that holds read
// locks, which would stall every writer queued behind it. Raising one's
// own nice value needs no privilege; it is per thread on Linux.
inline constexpr int kBackgroundNice = 10;
inline void LowerThisThreadPriority() {
  const pid_t tid = gettid();
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, tid);
  if (errno == 0) setpriority(PRIO_PROCESS, tid, now + kBackgroundNice);
}

// Threads inherit the creator's signal mask. Create ours inside this scope
// so slurmctld's signals (SIGTERM, SIGHUP, SIGCHLD...) keep going to the
// threads slurmctld expects, and a SIGPIPE on a dead socket stays pending
// instead of killing the controller.
class BlockAllSignals {
 public:
  BlockAllSignals() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &saved_);
  }
  ~BlockAllSignals() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }
  BlockAllSignals(const BlockAllSignals&) = delete;
  BlockAllSignals& operator=(const BlockAllSignals&) = delete;

 private:
  sigset_t saved_;
};

}  // namespace sm
