// SPDX-License-Identifier: GPL-2.0-or-later
// The background collector: the sub-collectors of sub_collectors.h
// (Soperator's nodes/jobs/diag, and ours) on a ticker, each with an
// in-flight limit, sequence numbers against stale results and failure
// isolation. After each tick it renders every endpoint into cached bodies,
// so a scrape copies bytes and never touches slurmctld.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "body.h"
#include "endpoints.h"
#include "exposition.h"
#include "self_monitoring.h"
#include "source.h"
#include "sub_collectors.h"

namespace sm {

// Who a body is for. kPublic leaves out the families that reveal what
// slurm.conf's PrivateData hides (private_data.h); while PrivateData hides
// nothing, or IgnorePrivateData is set, both views are the same body.
enum class View : uint8_t {
  kFull,    // authenticated scrapers, slurmctld's own access-checked paths
  kPublic,  // anyone else
};

struct CollectorOptions {
  std::chrono::milliseconds interval{30000};
  int max_inflight = 1;
  std::vector<Endpoint> endpoints;  // what to render
  bool native_values = false;
  bool pending_user_label = true;
  std::vector<std::string> disabled_families;
  // IgnorePrivateData=yes: everyone gets the full view.
  bool ignore_private_data = false;
  // Clocks, injectable for tests: monotonic seconds and unix seconds.
  std::function<double()> monotonic_now;
  std::function<int64_t()> unix_now;
};

class Collector {
 public:
  Collector(Source& source, CollectorOptions options, SelfMonitoring& monitoring);
  ~Collector();
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  // Starts the workers and, unless `ticker` is false (the shim drives
  // collections itself), the ticker; the first tick runs at once.
  void Start(bool ticker = true);
  // Stops and joins every thread; safe to call twice.
  void Stop();
  // For process exit (no fini()): joins the render thread, which never
  // waits on slurmctld's locks, and tells the collection workers and the
  // ticker to stop without waiting for them: one of them may be queued on
  // a lock of slurmctld's that the exiting thread holds. Afterwards no
  // thread of ours renders, so nothing reads the static data exit()
  // destroys next.
  void StopRendering();

  // Runs one tick synchronously on the calling thread (shim, tests).
  void CollectOnce();

  // The latest body for an endpoint and format; an empty body before the
  // first successful collection (Soperator serves an empty 200 then too).
  // A body not rendered (never asked for, or not for a while) is rendered
  // on this request, from the cached state. Once asked for, every tick
  // renders it again, for as long as it is asked for at least every
  // max(3 collection intervals, 2 minutes). `gzip` marks it as wanted
  // compressed: ticks then compress it too, instead of a scrape.
  std::shared_ptr<const Body> Get(Endpoint e, Format f, View view,
                                  bool gzip = false);

  // What the public view leaves out right now (0 before the first tick).
  PrivateData hidden() const { return hidden_.load(); }

  // True once a collection has completed while active.
  bool Ready() const;

  // The self-monitoring families that come from collected state: what
  // slurmctld knows about its link to slurmdbd (AccountingStatus).
  void AddStateFamilies(MetricSet& set);

 private:
  // Scheduling state of one kSubCollectors entry.
  struct SubCollector {
    int inflight = 0;
    uint64_t next_sequence = 0;
    uint64_t applied_sequence = 0;
  };
  struct Tick {
    uint64_t epoch = 0;  // epoch_ when the tick started
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

  void TickerLoop();
  // Each worker serves one sub-collector, and one thread renders: every
  // thread then reuses the memory its own kind of work freed last time
  // (glibc gives each thread its own malloc arena, and keeps what a thread
  // freed for that arena). Tasks hopping between threads made each arena
  // grow to the largest snapshot plus the largest render.
  void WorkerLoop(int sub);
  void RenderLoop();
  void StartTick(bool synchronous);
  void RunTask(const Task& task);
  // Applies a result under apply_mu_; false when stale (an older sequence,
  // or a tick started before the last Deactivate()).
  bool Apply(int sub, uint64_t sequence, uint64_t epoch, const Applier& apply);
  // Renders and publishes every wanted body, unless Deactivate() ran since
  // the tick of `epoch` started.
  void RenderAll(uint64_t epoch);
  // The one render path: builds `e`'s families from the current state once
  // and writes them in each format of `formats` (indexed by Slot()) into
  // `out`. Called with apply_mu_ held. `reserve` sizes each output after
  // the previous body.
  void RenderEndpoint(Endpoint e, View view, const std::array<bool, 2>& formats,
                      const std::array<size_t, 2>& reserve,
                      std::array<std::shared_ptr<const Body>, 2>& out,
                      WriteStats& stats);
  void Deactivate();
  // Asks the source what PrivateData hides; logs when that changes.
  void UpdateHidden();

  Source& source_;
  CollectorOptions options_;
  SelfMonitoring& monitoring_;

  std::mutex mu_;  // scheduling state, generation, queue
  std::condition_variable cv_;
  bool stopping_ = false;
  bool started_ = false;
  std::array<SubCollector, kSubCollectorCount> subs_;
  // Entries whose families are all disabled: never collected.
  std::array<bool, kSubCollectorCount> skipped_{};
  std::deque<Task> queue_;
  bool render_pending_ = false;  // a tick finished: RenderLoop renders
  uint64_t render_epoch_ = 0;
  std::vector<std::thread> threads_;  // workers, then render, then ticker
  std::thread render_thread_;

  std::mutex apply_mu_;  // state_ and active_; never held with mu_
  CollectedState state_;
  bool active_ = true;
  // Bumped by every Deactivate(): results of ticks started before it (still
  // running when the controller went to standby) are dropped, never served.
  std::atomic<uint64_t> epoch_{0};

  std::atomic<PrivateData> hidden_{0};      // what kPublic leaves out
  std::atomic<PrivateData> configured_{0};  // PrivateData as last logged

  // Published bodies by endpoint, view and format (Slot()); nullptr = not
  // rendered (yet, or no longer). Guarded by mu_, like asked_ and
  // gzip_asked_.
  static constexpr size_t kSlots = kEndpointCount * 2 * 2;
  std::array<std::shared_ptr<const Body>, kSlots> bodies_;
  // When each body was last asked for (monotonic seconds; -inf: never),
  // plain and gzip. A tick renders (and compresses) only what was asked
  // for within keep_seconds_; the rest is dropped, and rendered again on
  // the request that next asks for it.
  std::array<double, kSlots> asked_;
  std::array<double, kSlots> gzip_asked_;
  double keep_seconds_;
  bool ready_ = false;
};

}  // namespace sm
