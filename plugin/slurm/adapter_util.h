// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <stdexcept>

#include "slurm_api.h"
#include "source.h"

namespace sm::slurm {

// Our sub-collectors take slurmctld's locks one at a time. slurmctld's
// rwlocks prefer readers: a waiting writer gets in only when the reader
// count drops to zero. Were the job walk's slices and the node copy to
// overlap on two threads, the count would never drop between them and a
// writer would wait for all of our holds together instead of one slice.
inline std::mutex our_lock_turn;

// Whether a generation of ours may take new locks of slurmctld's or
// assoc_mgr's: closed when its collector stops
// (ControllerSource::StopTakingLocks()), perhaps by a thread that holds
// every slurmctld write lock (22.05 and 23.02 call fini() there on a
// reconfigure). From then on no thread of that generation takes a new
// one: a collection that would ends with CollectionStopped instead
// (docs/architecture.md, "Stopping"). One gate per ControllerSource, so
// a new generation started in the same reconfigure (init() right after
// fini()) neither reopens the old one's nor is closed by it; each
// collection names its source's gate for its thread (LockGateScope), and
// TimedLock, TimedAssocLock and the sdiag RPC look there.
struct CollectionStopped : std::runtime_error {
  CollectionStopped()
      : std::runtime_error("the plugin is stopping: no new lock is taken") {}
};

inline thread_local const std::atomic<bool>* current_lock_gate = nullptr;

inline void ThrowIfLocksClosed() {
  if (current_lock_gate && current_lock_gate->load()) throw CollectionStopped();
}

// For the span of one collection on this thread; throws at once when the
// gate is closed already.
class LockGateScope {
 public:
  explicit LockGateScope(const std::atomic<bool>& closed) : previous_(current_lock_gate) {
    current_lock_gate = &closed;
    try {
      ThrowIfLocksClosed();
    } catch (...) {
      current_lock_gate = previous_;
      throw;
    }
  }
  ~LockGateScope() { current_lock_gate = previous_; }
  LockGateScope(const LockGateScope&) = delete;
  LockGateScope& operator=(const LockGateScope&) = delete;

 private:
  const std::atomic<bool>* previous_;
};

// lock_slurmctld() for the lifetime of the object, timing wait and hold
// (the wait for slurmctld's locks, not for our turn).
// A collection that takes the locks several times (in slices) adds up its
// waits and holds in the same LockTiming.
class TimedLock {
 public:
  using Clock = std::chrono::steady_clock;

  TimedLock(slurmctld_lock_t locks, LockTiming& timing)
      : turn_(our_lock_turn), locks_(locks), timing_(timing) {
    // After our turn, which may have been a long wait.
    ThrowIfLocksClosed();
    const auto t0 = Clock::now();

    lock_slurmctld(locks_);
    acquired_ = Clock::now();
    timing_.used = true;
    timing_.wait_seconds += Seconds(acquired_ - t0);
  }
  ~TimedLock() { Release(); }
  void Release() {
    if (released_) return;
    unlock_slurmctld(locks_);
    released_ = true;
    timing_.hold_seconds += Seconds(Clock::now() - acquired_);
    turn_.unlock();
  }
  Clock::time_point acquired() const { return acquired_; }
  TimedLock(const TimedLock&) = delete;
  TimedLock& operator=(const TimedLock&) = delete;

 private:
  static double Seconds(Clock::duration d) {
    return std::chrono::duration<double>(d).count();
  }
  std::unique_lock<std::mutex> turn_;
  slurmctld_lock_t locks_;
  LockTiming& timing_;
  Clock::time_point acquired_;
  bool released_ = false;
};

// Calls f(index) for every set bit; bitmaps are indexed by node slot.
template <typename F>
void ForEachSetBit(bitstr_t* b, F&& f) {
  if (!b) return;
  const bitoff_t first = bit_ffs(b);
  if (first < 0) return;
  const bitoff_t last = bit_fls(b);
  for (bitoff_t i = first; i <= last; ++i) {
    if (bit_test(b, i)) f(static_cast<uint32_t>(i));
  }
}

// list_for_each_ro with a C++ callable.
template <typename F>
void ForEachRecord(SlurmList list, F&& f) {
  if (!list) return;
  list_for_each_ro(
      list,
      [](void* x, void* arg) -> int {
        (*static_cast<F*>(arg))(x);
        return 0;
      },
      &f);
}

// One of Slurm's state or flag bits and the bit of ours that stands for it.
template <typename Ours>
struct BitMap {
  uint32_t slurm;
  Ours ours;
};

// Our bits for Slurm's `raw`: those of the entries whose Slurm bit is set.
template <typename Ours, size_t N>
Ours MapBits(uint32_t raw, const BitMap<Ours> (&table)[N]) {
  Ours out = 0;
  for (const BitMap<Ours>& b : table) {
    if (raw & b.slurm) out |= b.ours;
  }
  return out;
}

// ForEachRecord with f(x) called `Ahead` records after prefetch(x): when f
// is bound by cache misses on the records (scattered over slurmctld's
// heap), the misses of the records in between overlap.
template <int Ahead = 8, typename P, typename F>
void ForEachRecordPrefetched(SlurmList list, P&& prefetch, F&& f) {
  void* ring[Ahead];
  size_t n = 0;
  ForEachRecord(list, [&](void* x) {
    prefetch(x);
    if (n >= Ahead) f(ring[n % Ahead]);
    ring[n % Ahead] = x;
    ++n;
  });
  for (size_t k = n > Ahead ? n - Ahead : 0; k < n; ++k) f(ring[k % Ahead]);
}

}  // namespace sm::slurm
