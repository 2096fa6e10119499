// SPDX-License-Identifier: GPL-2.0-or-later
#include "collect/state_store.h"

namespace sm {

StateStore::StateStore(const CollectorOptions& options)
    : options_(options), state_(options.monotonic_now(), options.finished_jobs) {}

bool StateStore::Apply(int sub, uint64_t sequence, uint64_t epoch,
                       const Applier& apply) {
  std::lock_guard lock(mu_);
  if (stopped_) return false;
  // Collected before this controller went to standby: stale now.
  if (epoch != epoch_.load()) return false;
  // Only possible with max_inflight > 1: an older run finishing last.
  if (sequence != 0 && sequence <= applied_[sub]) return false;
  applied_[sub] = sequence;
  state_.unix_now = options_.unix_now();
  apply(state_, options_.monotonic_now());
  active_ = true;
  return true;
}

bool StateStore::Deactivate() {
  std::lock_guard lock(mu_);
  // At every inactive tick, not only the first: a tick started while
  // active may still be collecting, and must neither apply nor publish.
  ++epoch_;
  const bool was_active = active_;
  if (was_active) {
    active_ = false;
    state_ = CollectedState(options_.monotonic_now(), options_.finished_jobs);
  }
  return was_active;
}

void StateStore::MarkStopped() {
  std::lock_guard lock(mu_);
  stopped_ = true;  // a worker past RunTask's check applies nothing now
  state_ = CollectedState(options_.monotonic_now(), options_.finished_jobs);
}

}  // namespace sm
