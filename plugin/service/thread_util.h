// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <pthread.h>
#include <signal.h>

namespace sm {

// Names the calling thread (15 characters at most) so `top -H`, gdb and
// tracing tell our threads from slurmctld's own.
inline void NameThisThread(const char* name) {
  pthread_setname_np(pthread_self(), name);
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
