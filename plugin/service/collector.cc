// SPDX-License-Identifier: GPL-2.0-or-later
#include "collector.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include "base/log.h"

namespace sm {
namespace {

double SteadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t UnixSeconds() { return static_cast<int64_t>(std::time(nullptr)); }

CollectorOptions Normalized(CollectorOptions options) {
  if (!options.monotonic_now) options.monotonic_now = SteadySeconds;
  if (!options.unix_now) options.unix_now = UnixSeconds;
  if (options.max_inflight < 1) options.max_inflight = 1;
  return options;
}

double IntervalSeconds(const CollectorOptions& options) {
  return std::chrono::duration<double>(options.interval).count();
}

// Rendering a 47 MB body nobody fetches cost a 50,000-job controller more
// CPU than collecting; a scraper a few intervals apart keeps its body warm.
double KeepSeconds(const CollectorOptions& options) {
  return std::max(3 * IntervalSeconds(options), 120.0);
}

}  // namespace

Collector::Collector(Source& source, CollectorOptions options,
                     SelfMonitoring& monitoring)
    : source_(source),
      options_(Normalized(std::move(options))),
      monitoring_(monitoring),
      store_(options_),
      cache_(options_.cached_body_limit, KeepSeconds(options_), monitoring),
      planner_(mu_, cache_, store_, hidden_, options_, monitoring),
      scheduler_(mu_, source, store_, options_, monitoring,
                 {[this] { return BeginTick(); }, [this](uint64_t e) { RenderAll(e); },
                  [this] { return cache_.ready(); }}) {
  monitoring_.SetCollectionInterval(IntervalSeconds(options_));
  // The carrier's own paths are warm from the start, as if just asked for.
  const double now = options_.monotonic_now();
  for (Endpoint e : options_.endpoints) cache_.Warm(Slot(e, View::kFull, Format::kText), now);
}

// The runtime never destroys a collector whose Stop() returned non-zero
// (plugin/slurm/runtime.cc leaks it); others (tests, the shim) wait here
// until every thread, detached or not, has ended.
Collector::~Collector() {
  Stop(std::chrono::milliseconds::max());
  scheduler_.WaitEnded();
}

void Collector::Start(bool ticker) { scheduler_.Start(ticker); }

int Collector::Stop(std::chrono::milliseconds grace) {
  StopRendering();  // tells every thread to stop, joins the render thread
  const int busy = scheduler_.WaitIdle(grace);
  if (busy == 0) {
    scheduler_.JoinAll();
    return 0;
  }
  // One of them may be queued on a lock the caller holds: they are
  // detached, and end on their own. Let go of the collected state and the
  // bodies meanwhile: the apply lock and mu_ are never held while waiting
  // for slurmctld.
  scheduler_.DetachAll();
  store_.MarkStopped();
  {
    std::lock_guard lock(mu_);
    cache_.Clear();
  }
  return busy;
}

void Collector::StopRendering() {
  {
    std::lock_guard lock(mu_);
    scheduler_.StopLocked();
  }
  // No new lock of slurmctld's or assoc_mgr's is taken from here on; a
  // collection between two slices of the job walk ends at the next one.
  source_.StopTakingLocks();
  scheduler_.Wake();
  ready_cv_.notify_all();
  scheduler_.JoinRenderThread();
}

void Collector::CollectOnce() { scheduler_.CollectOnce(); }

bool Collector::Ready() const {
  std::lock_guard lock(mu_);
  return cache_.ready();
}

Collector::Readiness Collector::GetReadiness() const {
  std::lock_guard lock(mu_);
  if (standby_) return {false, "standby: this slurmctld is not the controller in charge"};
  if (!cache_.ready()) return {false, "no collection yet"};
  const double interval = IntervalSeconds(options_);
  const double now = options_.monotonic_now();
  std::string_view which;
  const double oldest = scheduler_.OldestSuccessLocked(now, which);
  if (now - oldest > kStaleIntervals * interval) {
    const std::string age = std::isfinite(oldest)
                                ? "for " + std::to_string(static_cast<long long>(now - oldest)) + " s"
                                : "since the controller took charge";
    return {false, "stale: no successful " + std::string(which) + " collection " + age +
                       " (more than " + std::to_string(kStaleIntervals) +
                       " CollectionIntervals)"};
  }
  return {true, "ok"};
}

void Collector::AddStateFamilies(MetricSet& set) {
  std::lock_guard lock(store_.mu());
  if (store_.state().cluster.accounting)
    AddAccountingStatusFamilies(set, *store_.state().cluster.accounting);
}

bool Collector::BeginTick() {
  const bool active = source_.Active();
  monitoring_.ControllerActive(active);
  {
    std::lock_guard lock(mu_);
    standby_ = !active;
  }
  if (!active) {
    Deactivate();
    return false;
  }
  UpdateHidden();
  return true;
}

void Collector::RenderAll(uint64_t epoch) {
  if (planner_.RenderAll(epoch)) ready_cv_.notify_all();
}

std::shared_ptr<const Body> Collector::Get(Endpoint e, Format f, View view,
                                           bool gzip) {
  Served served = Serve(e, f, view, gzip, std::chrono::milliseconds(0));
  return served.body ? std::move(served.body) : Body::Empty();
}

bool Collector::LookUpLocked(std::unique_lock<std::mutex>& lock, size_t slot,
                             bool gzip, std::chrono::milliseconds wait_ready,
                             OnRequest on_request, Served& served,
                             BodyCache::Admission& admit) {
  const double now = options_.monotonic_now();
  cache_.NoteAsked(slot, gzip, now);
  // A standby has nothing coming: no wait. Otherwise the first render
  // usually follows within a second or two of start.
  if (!cache_.ready() && !standby_ && wait_ready.count() > 0)
    ready_cv_.wait_for(lock, wait_ready,
                       [this] { return cache_.ready() || scheduler_.stopping_locked(); });
  // A gzip form made since the last look counts from now on.
  cache_.Fit(now, slot);
  if (cache_.body(slot)) {
    served.body = cache_.body(slot);
    if (gzip && served.body->gzipped_size() == 0)
      served.may_gzip = cache_.MayGzip(*served.body, now);
    return true;
  }
  if (!cache_.ready()) {
    served.status = Served::Status::kNotReady;
    return true;
  }
  if (on_request == OnRequest::kCachedOnly) {
    served.status = Served::Status::kNotCached;
    return true;
  }
  if (!cache_.Admit(slot, gzip, now, admit)) {
    served.status = Served::Status::kBusy;
    return true;
  }
  return false;
}

bool Collector::MaskCurrent(size_t slot, PrivateData hidden) const {
  return sm::MaskCurrent(slot, hidden, hidden_.load());
}

Collector::Served Collector::HandOutLocked(size_t slot, uint64_t epoch,
                                           PrivateData hidden,
                                           std::shared_ptr<const Body> body,
                                           const BodyCache::Admission& admit) {
  Served served;
  // As in RenderAll: what was rendered before a Deactivate() is not served.
  if (epoch != store_.epoch()) {
    served.status = Served::Status::kNotReady;
    return served;
  }
  // Nor a public body made with a PrivateData mask that has changed since:
  // busy, so the scraper comes again and gets one made with the new one.
  if (!MaskCurrent(slot, hidden)) {
    served.status = Served::Status::kBusy;
    return served;
  }
  // Once stopping, nothing more is kept: a stopped collector may be leaked.
  served.body = cache_.HandOut(slot, std::move(body), admit,
                               !scheduler_.stopping_locked(), options_.monotonic_now());
  return served;
}

Collector::Served Collector::Serve(Endpoint e, Format f, View view, bool gzip,
                                   std::chrono::milliseconds wait_ready,
                                   OnRequest on_request) {
  Served served;
  BodyCache::Admission admit;
  size_t slot;
  {
    std::unique_lock lock(mu_);
    // With nothing hidden the public view is the full one: one body, one
    // render. hidden_ changes under mu_ (UpdateHidden()).
    if (hidden_.load() == 0) view = View::kFull;
    slot = Slot(e, view, f);
    if (LookUpLocked(lock, slot, gzip, wait_ready, on_request, served, admit))
      return served;
  }
  struct Release {  // the reservation goes, whatever the render did
    Collector& c;
    const BodyCache::Admission& admit;
    ~Release() {
      std::lock_guard lock(c.mu_);
      c.cache_.Release(admit);
    }
  } release{*this, admit};
  uint64_t epoch = 0;
  PrivateData hidden = 0;
  std::shared_ptr<const Body> body =
      planner_.RenderOnRequest(e, view, slot, admit.cost_hint, epoch, hidden);
  std::lock_guard lock(mu_);
  return HandOutLocked(slot, epoch, hidden, std::move(body), admit);
}

void Collector::UpdateHidden() {
  const PrivateData configured = source_.HiddenFromUsers();
  const PrivateData hidden = options_.ignore_private_data ? PrivateData{0} : configured;
  {
    // Under mu_, with the public bodies made for another PrivateData
    // dropped (re-rendered on request): a lookup (under mu_ too) never
    // finds the new mask with an old body, nor maps a public request to
    // the full view by the old one.
    std::lock_guard lock(mu_);
    if (hidden_.exchange(hidden) != hidden) cache_.DropPublic();
  }
  if (configured == configured_.exchange(configured)) return;
  const std::string names = PrivateDataNames(configured);
  if (configured == 0) {
    LogInfo("slurm.conf PrivateData hides nothing we export: every scraper "
            "gets every series");
  } else if (options_.ignore_private_data) {
    LogInfo("slurm.conf PrivateData=" + names +
            ", but IgnorePrivateData=yes: every scraper gets every series, "
            "including those that reveal " + names);
  } else {
    LogInfo("slurm.conf PrivateData=" + names + ": series that reveal " +
            names + " are served only to authenticated scrapers "
            "(WebConfigFile); IgnorePrivateData=yes serves them to everyone");
  }
}

void Collector::Deactivate() {
  const bool was_active = store_.Deactivate();
  {
    std::lock_guard lock(mu_);
    cache_.Clear();
    scheduler_.ForgetSuccessesLocked();
  }
  if (was_active) LogInfo("controller not active: metrics cleared until it is");
}

}  // namespace sm
