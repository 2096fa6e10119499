// SPDX-License-Identifier: GPL-2.0-or-later
// The collected state every render reads, under the collector's apply
// lock: what Apply() stores, what Deactivate() and a Stop() that left
// threads running forget, and the epoch that tells a result or a body of
// an earlier generation from a current one (docs/architecture.md,
// "Threads and locks", "Stopping"). The apply lock is never held with the
// collector's mu_, nor while anything waits on slurmctld.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>

#include "collect/collector_options.h"
#include "sub_collectors.h"

namespace sm {

class StateStore {
 public:
  explicit StateStore(const CollectorOptions& options);

  // Stores a result; false when stale (an older sequence, a tick started
  // before the last Deactivate(), or after MarkStopped()).
  bool Apply(int sub, uint64_t sequence, uint64_t epoch, const Applier& apply);
  // Bumps the epoch (results of ticks started before are dropped) and, if
  // it was active, starts over: a standby controller must not serve what
  // it saw before. True when it was active.
  bool Deactivate();
  // A Stop() that left threads running: nothing is applied after, and
  // the collected state is let go.
  void MarkStopped();
  uint64_t epoch() const { return epoch_.load(); }

  // The lock every reader of state() holds (the apply lock).
  std::mutex& mu() { return mu_; }
  const CollectedState& state() const { return state_; }

 private:
  const CollectorOptions& options_;
  std::mutex mu_;  // state_, active_, stopped_, applied_; never held with mu_
  // Set by a Stop() that left threads running: nothing is applied after.
  bool stopped_ = false;
  CollectedState state_;
  bool active_ = true;
  // The sequence of each sub-collector's last applied result.
  std::array<uint64_t, kSubCollectorCount> applied_{};
  // Bumped by every Deactivate(): results of ticks started before it (still
  // running when the controller went to standby) are dropped, never served.
  std::atomic<uint64_t> epoch_{0};
};

}  // namespace sm
