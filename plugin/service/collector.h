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
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "body.h"
#include "serving/endpoints.h"
#include "exposition/exposition.h"
#include "families/soperator/self_monitoring.h"
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
  bool node_info_nodeset = false;  // NodeInfoNodesetLabel
  std::vector<std::string> disabled_families;
  // IgnorePrivateData=yes: everyone gets the full view.
  bool ignore_private_data = false;
  // Most bytes the cached bodies (every endpoint, format and view, plain
  // and gzip) may hold together; 0: the default, kCachedBodyLimitFactor
  // times the largest body asked for lately, at least kMinCachedBodyLimit
  // (docs/configuration.md, "Cached bodies").
  uint64_t cached_body_limit = 0;
  // JobSource=accounting: finished jobs served for the lookback
  // (docs/configuration.md, "Finished jobs"); none: JobSource=controller.
  std::optional<FinishedJobLimits> finished_jobs;
  // IncrementalRender=no: every render writes every family and compresses
  // every byte again (docs/configuration.md; the comparison the tests
  // make).
  bool incremental_render = true;
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
  // Stops every thread. Joins those waiting only on the collector itself
  // (idle workers, the ticker between ticks, the render thread); a worker
  // in a collection, or the ticker in a tick, may be waiting for one of
  // slurmctld's or assoc_mgr's locks that the caller holds (Slurm 22.05
  // and 23.02 call fini() under every slurmctld write lock on a
  // reconfigure, docs/architecture.md "Stopping"), so those are detached
  // instead: they finish without applying or rendering anything and end.
  // Returns how many were busy (then every thread is detached): while it
  // is not 0, this Collector, its
  // Source and its SelfMonitoring must never be destroyed (the caller
  // leaks them). `grace`: how long to wait for busy threads to become idle
  // first; the runtime passes 0, since it may hold slurmctld's locks.
  // Safe to call twice.
  int Stop(std::chrono::milliseconds grace = std::chrono::milliseconds(0));
  // For process exit (no fini()): joins the render thread, which never
  // waits on slurmctld's locks, and tells the collection workers and the
  // ticker to stop without waiting for them: one of them may be queued on
  // a lock of slurmctld's that the exiting thread holds. Afterwards no
  // thread of ours renders, so nothing reads the static data exit()
  // destroys next.
  void StopRendering();

  // Runs one tick synchronously on the calling thread (shim, tests).
  void CollectOnce();

  // What a request gets: a body, or why there is none.
  struct Served {
    enum class Status {
      kOk,
      // No collection has finished since start (or since this controller
      // took charge), or it is a standby: nothing to serve yet. Never an
      // empty body: a scraper would record up 1 with no series
      // (docs/scraping.md, "Before the first collection").
      kNotReady,
      // The body does not fit under the cached body limit and another
      // request is already being rendered uncached: 503, try again.
      kBusy,
      // Not cached, and the caller asked not to render it
      // (OnRequest::kCachedOnly): nothing was done.
      kNotCached,
    };
    Status status = Status::kOk;
    std::shared_ptr<const Body> body;  // set when kOk
    // False: send it uncompressed; compressing it would put its gzip form
    // in the cache past the limit (HTTP lets a server pick identity).
    bool may_gzip = true;
  };
  // The default limit of the cached bodies: one scraper of every path in
  // one format, with gzip, fits; a client asking for every variant does not
  // (docs/configuration.md, "Cached bodies").
  static constexpr uint64_t kCachedBodyLimitFactor = 4;
  static constexpr uint64_t kMinCachedBodyLimit = uint64_t{16} << 20;
  // Renders for a request alone (not cached) at a time; more get kBusy.
  // Each holds a body's worth of memory until it is sent.
  static constexpr int kMaxUncachedRenders = 1;
  // How long a request on our listener waits for the first collection
  // before it gets 503 (Exporter::ServeEndpoint). slurmctld's own threads
  // never wait (docs/scraping.md, "Before the first collection").
  static constexpr std::chrono::milliseconds kFirstCollectionWait{5000};

  // The latest body for an endpoint and format. Before the first
  // collection of a controller in charge has been rendered, waits for it
  // up to `wait_ready`, then answers kNotReady; a standby never waits.
  // A body not rendered (never asked for, or not for a while) is rendered
  // on this request, from the cached state, and kept if it fits under the
  // limit of the cached bodies (else served to this request alone, or
  // kBusy). Once kept, every tick renders it again, for as long as it is
  // asked for at least every max(3 collection intervals, 2 minutes) and
  // fits: the most recently asked for first. `gzip` marks it as wanted
  // compressed: ticks then compress it too, instead of a scrape.
  // kCachedOnly: a body that would be rendered for this request is not,
  // and the answer is kNotCached (slurmctld's workers take a render slot
  // only then: slurmctld_routes.h, SlurmctldRenderSlot).
  enum class OnRequest { kRender, kCachedOnly };
  Served Serve(Endpoint e, Format f, View view, bool gzip,
               std::chrono::milliseconds wait_ready,
               OnRequest on_request = OnRequest::kRender);
  // Serve() without waiting, for callers that must hand over some body
  // (slurmctld's own /metrics/* through metrics_p_dump, tests): the empty
  // body when there is none.
  std::shared_ptr<const Body> Get(Endpoint e, Format f, View view,
                                  bool gzip = false);

  // What the public view leaves out right now (0 before the first tick).
  PrivateData hidden() const { return hidden_.load(); }

  // True once a collection has completed while active.
  bool Ready() const;

  // What /readyz answers (docs/scraping.md, "Health paths"): ready while
  // slurmctld is in charge and every sub-collector's served data is at
  // most kStaleIntervals collection intervals old.
  struct Readiness {
    bool ready = false;
    std::string why;  // "ok", or why not
  };
  static constexpr int kStaleIntervals = 3;
  Readiness GetReadiness() const;

  // The self-monitoring families that come from collected state: what
  // slurmctld knows about its link to slurmdbd (AccountingStatus).
  void AddStateFamilies(MetricSet& set);

 private:
  // Scheduling state of one kSubCollectors entry.
  struct SubCollector {
    int inflight = 0;
    uint64_t next_sequence = 0;
    uint64_t applied_sequence = 0;
    // Failures in a row, and when the last line about them was logged
    // (monotonic seconds).
    uint64_t failures = 0;
    uint64_t failures_logged = 0;
    double failure_logged_at = 0;
  };
  // How often a sub-collector that keeps failing is logged again.
  static constexpr double kFailureLogSeconds = 600;
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
  // RunTask's bookkeeping after the collection: logs a failure (the first
  // of a run, then now and then), applies, counts the tick.
  void FinishTask(const Task& task, double t0, int64_t unix_t0,
                  const LockTiming& timing, const std::string& error,
                  const Applier& result);
  // A failed collection of `sub`: logged the first time in a row, then at
  // most every kFailureLogSeconds with the count, and its recovery. With
  // mu_ held; the line (empty: none) is logged after mu_ is let go.
  std::string NoteFailureLocked(int sub, const std::string& error);
  std::string NoteSuccessLocked(int sub);
  // Applies a result under apply_mu_; false when stale (an older sequence,
  // or a tick started before the last Deactivate()).
  bool Apply(int sub, uint64_t sequence, uint64_t epoch, const Applier& apply);
  // Renders and publishes every wanted body, unless Deactivate() ran since
  // the tick of `epoch` started: PlanRendersLocked, RenderPlanned, then
  // PublishLocked.
  void RenderAll(uint64_t epoch);
  struct RenderPlan;  // what one RenderAll renders (collector.cc)
  // Serve()'s parts. A body not cached is admitted (Admission) and
  // rendered on request, then kept or handed to this request alone.
  struct Admission;
  // With mu_ held through `lock`: the cached body, or why none (not ready,
  // busy), or an admission to render it. True when `served` is the answer.
  bool LookUpLocked(std::unique_lock<std::mutex>& lock, size_t slot, bool gzip,
                    std::chrono::milliseconds wait_ready, OnRequest on_request,
                    Served& served, Admission& admit);
  // `hidden` is set to the PrivateData mask the body was made with.
  std::shared_ptr<const Body> RenderOnRequest(Endpoint e, View view, size_t slot,
                                              size_t size_hint, uint64_t& epoch,
                                              PrivateData& hidden);
  // With mu_ held.
  Served HandOutLocked(size_t slot, uint64_t epoch, PrivateData hidden,
                       std::shared_ptr<const Body> body, const Admission& admit);
  // False when a body of `slot` made with the mask `hidden` must not be
  // kept or served: a public body made before UpdateHidden() changed what
  // the public view leaves out.
  bool MaskCurrent(size_t slot, PrivateData hidden) const;
  // Which kept bodies to render again, most recently asked for first,
  // within the limit; drops the rest. With mu_ held.
  void PlanRendersLocked(double now, RenderPlan& plan);
  // Renders the planned bodies (apply_mu_ per endpoint); true if any.
  bool RenderPlanned(RenderPlan& plan, WriteStats& stats);
  // Swaps the fresh bodies in; false if Deactivate() ran since `epoch`.
  // With mu_ held.
  bool PublishLocked(uint64_t epoch, RenderPlan& plan);
  // The one render path: builds `e`'s families from the current state once
  // and writes them in each format of `formats` (indexed by Slot()) into
  // `out`. Called with apply_mu_ held. `reserve` sizes each output after
  // the previous body. `earlier` are the bodies the new ones replace (null:
  // none): unless IncrementalRender=no, families whose rows did not change
  // are copied from them.
  // `hidden` is what the body leaves out (0 for View::kFull).
  void RenderEndpoint(Endpoint e, PrivateData hidden, const std::array<bool, 2>& formats,
                      const std::array<size_t, 2>& reserve,
                      const std::array<const Body*, 2>& earlier,
                      std::array<std::shared_ptr<const Body>, 2>& out,
                      WriteStats& stats, size_t& groups_taken,
                      bool take_groups = true);
  void Deactivate();
  // Bytes the cached bodies hold (plain and the gzip forms made so far),
  // and their limit now. With mu_ held.
  uint64_t CachedBytesLocked() const;
  uint64_t LimitLocked(double now) const;
  // Drops cached bodies until they fit under the limit: those not asked
  // for within keep_seconds_ first, then the least recently asked for
  // (except `keep`, the one a request is about to get). Publishes the
  // gauge. With mu_ held.
  void FitLocked(double now, size_t keep = kSlots);
  // Asks the source what PrivateData hides; logs when that changes.
  void UpdateHidden();

  Source& source_;
  CollectorOptions options_;
  SelfMonitoring& monitoring_;

  std::mutex mu_;  // scheduling state, generation, queue
  std::condition_variable cv_;
  std::condition_variable ready_cv_;  // ready_ became true, or stopping_
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
  std::vector<std::thread> threads_;  // workers, then render, then ticker
  std::thread render_thread_;

  std::mutex apply_mu_;  // state_, active_, stopped_; never held with mu_
  // Set by a Stop() that left threads running: nothing is applied after.
  bool stopped_ = false;
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
  // Bodies admitted under the limit: RenderAll renders these (while asked
  // for), and only these; a body that did not fit is rendered per request.
  std::array<bool, kSlots> kept_{};
  // Size of each body's last render (text), kept after it is dropped: what
  // admitting it again would cost, and the "largest body" of the limit.
  std::array<uint64_t, kSlots> last_bytes_{};
  // Bytes of renders under way that are meant for the cache, and renders
  // under way for one request alone.
  uint64_t reserved_ = 0;
  int uncached_inflight_ = 0;
  // Bytes of bodies rendered for one request alone that requests still
  // hold (a slow reader keeps one up to the write deadline), their gzip
  // forms counted at a quarter: under the cache's limit too, past it
  // kBusy (docs/configuration.md, "Cached bodies").
  std::shared_ptr<std::atomic<uint64_t>> uncached_held_ =
      std::make_shared<std::atomic<uint64_t>>(0);
  double keep_seconds_;
  bool ready_ = false;
  // Readiness, guarded by mu_: whether the latest tick found slurmctld in
  // charge, and when (monotonic) each sub-collector's served data was
  // stored (-inf: never since the last Deactivate()).
  bool standby_ = false;
  std::array<double, kSubCollectorCount> last_success_;
};

}  // namespace sm
