// SPDX-License-Identifier: GPL-2.0-or-later
// The background collector: the sub-collectors of sub_collectors.h
// (Soperator's nodes/jobs/diag, and ours) on a ticker, each with an
// in-flight limit, sequence numbers against stale results and failure
// isolation. After each tick it renders every endpoint into cached bodies,
// so a scrape copies bytes and never touches slurmctld.
//
// A facade over its roles (docs/architecture.md, "Served"): the
// Scheduler (collect/scheduler.h) runs the threads and the collections,
// the StateStore (collect/state_store.h) holds what they collected, the
// RenderPlanner (render/render_planner.h) renders and publishes bodies
// into the BodyCache (render/body_cache.h). The Collector owns them and
// the one lock they share, and serves.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "body.h"
#include "collect/collector_options.h"
#include "collect/scheduler.h"
#include "collect/state_store.h"
#include "exposition/exposition.h"
#include "families/soperator/self_monitoring.h"
#include "render/body_cache.h"
#include "render/render_planner.h"
#include "render/slots.h"
#include "serving/endpoints.h"
#include "source.h"
#include "sub_collectors.h"

namespace sm {

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
  static constexpr uint64_t kCachedBodyLimitFactor = BodyCache::kLimitFactor;
  static constexpr uint64_t kMinCachedBodyLimit = BodyCache::kMinLimit;
  // Renders for a request alone (not cached) at a time; more get kBusy.
  // Each holds a body's worth of memory until it is sent.
  static constexpr int kMaxUncachedRenders = BodyCache::kMaxUncachedRenders;
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
  // With mu_ held through `lock`: the cached body, or why none (not ready,
  // busy), or an admission to render it. True when `served` is the answer.
  bool LookUpLocked(std::unique_lock<std::mutex>& lock, size_t slot, bool gzip,
                    std::chrono::milliseconds wait_ready, OnRequest on_request,
                    Served& served, BodyCache::Admission& admit);
  // With mu_ held: what a request that rendered `body` is served.
  Served HandOutLocked(size_t slot, uint64_t epoch, PrivateData hidden,
                       std::shared_ptr<const Body> body,
                       const BodyCache::Admission& admit);
  // False when a body of `slot` made with the mask `hidden` must not be
  // kept or served: a public body made before UpdateHidden() changed what
  // the public view leaves out.
  bool MaskCurrent(size_t slot, PrivateData hidden) const;
  // The Scheduler's hooks: a tick's start (false: standby), and a render
  // pass after it.
  bool BeginTick();
  void RenderAll(uint64_t epoch);
  void Deactivate();
  // Asks the source what PrivateData hides; logs when that changes.
  void UpdateHidden();

  Source& source_;
  const CollectorOptions options_;
  SelfMonitoring& monitoring_;

  // Scheduling state, the cached bodies, readiness; never held with the
  // store's apply lock (docs/architecture.md, "Threads and locks").
  mutable std::mutex mu_;
  std::condition_variable ready_cv_;  // the cache became ready, or stopping
  std::atomic<PrivateData> hidden_{0};      // what kPublic leaves out
  std::atomic<PrivateData> configured_{0};  // PrivateData as last logged
  // Guarded by mu_: whether the latest tick found slurmctld not in charge.
  bool standby_ = false;
  StateStore store_;
  BodyCache cache_;  // guarded by mu_
  RenderPlanner planner_;
  Scheduler scheduler_;  // last: its threads end before the rest goes
};

}  // namespace sm
