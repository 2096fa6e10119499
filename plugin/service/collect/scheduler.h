// SPDX-License-Identifier: GPL-2.0-or-later
// When the collector collects: the ticker, one worker per sub-collector
// (sub_collectors.h) and in-flight slot, and the render thread; each
// collection's sequence, failure notes and tick bookkeeping; and the stop
// rules of docs/architecture.md, "Stopping": no stop path waits for a
// thread that may wait on slurmctld's locks.
//
// Its state is guarded by the collector's mu_ (passed in), the same lock
// the cached bodies live under, so a tick's end, a render's publish and a
// request's lookup see one order of events.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "collect/collector_options.h"
#include "collect/state_store.h"
#include "families/soperator/self_monitoring.h"
#include "source.h"
#include "sub_collectors.h"

namespace sm {

class Scheduler {
 public:
  // What the collector does at the scheduler's steps.
  struct Hooks {
    // A tick starts: asks slurmctld whether it is in charge (and what
    // PrivateData hides). False: a standby, nothing is collected.
    std::function<bool()> begin_tick;
    // Every collection of the tick of `epoch` has finished: render.
    std::function<void(uint64_t epoch)> render;
    // With mu_ held: whether a collection has been published (the ticker
    // looks every second until then).
    std::function<bool()> ready_locked;
  };
  Scheduler(std::mutex& mu, Source& source, StateStore& store,
            const CollectorOptions& options, SelfMonitoring& monitoring, Hooks hooks);
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Starts the workers, the render thread and, if `ticker`, the ticker.
  void Start(bool ticker);
  // Runs one tick synchronously on the calling thread (shim, tests).
  void CollectOnce() { StartTick(true); }

  // Stopping, in Collector::Stop()'s order: StopLocked() (with mu_ held),
  // Wake(), JoinRenderThread(), WaitIdle(), then JoinAll() when none was
  // busy or DetachAll() when one was.
  void StopLocked();
  bool stopping_locked() const { return stopping_; }
  void Wake() { cv_.notify_all(); }
  void JoinRenderThread();
  // How many threads are busy (in a collection, or the ticker in a tick)
  // after waiting up to `grace` for them to become idle.
  int WaitIdle(std::chrono::milliseconds grace);
  void JoinAll();
  void DetachAll();
  // Until every thread, detached or not, has ended.
  void WaitEnded();

  // Readiness, with mu_ held: when the oldest served data of a
  // sub-collector was collected (monotonic; `now` when none is older) and
  // which one; ForgetSuccessesLocked() after a Deactivate().
  double OldestSuccessLocked(double now, std::string_view& which) const;
  void ForgetSuccessesLocked();

 private:
  // Scheduling state of one kSubCollectors entry.
  struct SubCollector {
    int inflight = 0;
    uint64_t next_sequence = 0;
    // Failures in a row, and when the last line about them was logged
    // (monotonic seconds).
    uint64_t failures = 0;
    uint64_t failures_logged = 0;
    double failure_logged_at = 0;
  };
  // How often a sub-collector that keeps failing is logged again.
  static constexpr double kFailureLogSeconds = 600;
  struct Tick {
    uint64_t epoch = 0;  // the store's epoch when the tick started
    double start = 0;
    int started = 0;
    int finished = 0;
    bool failed = false;
  };
  struct Task {
    int sub;
    uint64_t sequence;
    std::shared_ptr<Tick> tick;
    bool synchronous = false;  // CollectOnce(): render on the caller's thread
  };
  // A collection as FinishTask counts it.
  struct Finished {
    double t0 = 0;        // monotonic start
    int64_t unix_t0 = 0;  // unix start
    double seconds = 0;   // the fetch and the state update
    bool failed = false;
    bool applied = false;
  };
  // What FinishTask learns about a task's tick, under mu_.
  struct TickEnd {
    bool done = false;
    bool failed = false;
    double seconds = 0;
  };

  void TickerLoop();
  // Each worker serves one sub-collector, and one thread renders: every
  // thread then reuses the memory its own kind of work freed last time
  // (glibc gives each thread its own malloc arena, and keeps what a thread
  // freed for that arena). Tasks hopping between threads made each arena
  // grow to the largest snapshot plus the largest render.
  void WorkerLoop(int sub);
  void RenderLoop();
  void StartTick(bool synchronous);
  // The tasks of a tick, counted as started; none when stopping (unless
  // synchronous). With mu_ held.
  std::vector<Task> QueueTasksLocked(const std::shared_ptr<Tick>& tick, bool synchronous);
  void RunTask(const Task& task);
  // RunTask's bookkeeping after the collection: logs a failure (the first
  // of a run, then now and then), applies, counts the tick.
  void FinishTask(const Task& task, double t0, int64_t unix_t0,
                  const LockTiming& timing, const std::string& error,
                  const Applier& result);
  // FinishTask's part under mu_; returns the line to log (empty: none).
  std::string CountFinishedLocked(const Task& task, const Finished& finished,
                                  const std::string& error, TickEnd& end);
  // Renders the tick's bodies: on this thread when synchronous, else on
  // the render thread.
  void RequestRender(const Task& task);
  // A failed collection of `sub`: logged the first time in a row, then at
  // most every kFailureLogSeconds with the count, and its recovery. With
  // mu_ held; the line (empty: none) is logged after mu_ is let go.
  std::string NoteFailureLocked(int sub, const std::string& error);
  std::string NoteSuccessLocked(int sub);

  std::mutex& mu_;
  Source& source_;
  StateStore& store_;
  const CollectorOptions& options_;
  SelfMonitoring& monitoring_;
  Hooks hooks_;

  std::condition_variable cv_;
  bool stopping_ = false;
  bool started_ = false;
  // Workers in a collection and the ticker in a tick: threads that may be
  // waiting for slurmctld's or assoc_mgr's locks, never joined by Stop().
  int busy_ = 0;
  // Our threads not yet ended (workers, ticker), and the condition
  // variable told when busy_ or alive_ drops. A detached thread's last
  // step is to count itself out here, under mu_.
  int alive_ = 0;
  std::condition_variable idle_cv_;
  std::array<SubCollector, kSubCollectorCount> subs_;
  // Entries whose families are all disabled: never collected.
  std::array<bool, kSubCollectorCount> skipped_{};
  std::deque<Task> queue_;
  bool render_pending_ = false;  // a tick finished: RenderLoop renders
  uint64_t render_epoch_ = 0;
  std::vector<std::thread> threads_;  // workers, then the ticker
  std::thread render_thread_;
  // When (monotonic) each sub-collector's served data was stored (-inf:
  // never since the last Deactivate()).
  std::array<double, kSubCollectorCount> last_success_;
};

}  // namespace sm
