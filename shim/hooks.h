// SPDX-License-Identifier: GPL-2.0-or-later
// The shim's process-wide hooks: the virtual clocks handed to the plugin,
// time() as the plugin sees it, and uid -> name resolution from the dumps.
#pragma once

#include <cstdint>

#include "model.h"

namespace shim {

// Virtual time. `monotonic` starts at 0 when the plugin is initialised;
// `unix` is the wall clock the replayed controller had at that moment.
// Advancing moves both. In following mode (serve) they track the real
// steady clock from the moment Follow() is called.
class VirtualClock {
 public:
  static void Set(double monotonic, int64_t unix_seconds);
  static void Advance(double seconds);
  static void Follow();
  static double Monotonic();
  static int64_t Unix();
  // Plain function pointers for soperator_metrics_offline().
  static double MonotonicFn();
  static int64_t UnixFn();
};

// From now on, time() called from code inside [lo, hi) answers
// VirtualClock::Unix(); everyone else keeps the real clock. The plugin's
// adapter reads time() for pending jobs' start estimates (and, on 22.05,
// reservation windows) the way pack_job() does; the replay must see the
// dump's "now" there too.
void VirtualizeTimeFor(uintptr_t lo, uintptr_t hi);

// getpwuid_r() answers from this table first: a uid the dumps resolved
// gets that name, a uid they could not resolve ("") gets "no such user",
// other uids go to the host's NSS. Merged into, never shrunk.
void LearnUsers(const UserTable& users);

}  // namespace shim
