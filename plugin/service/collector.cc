// SPDX-License-Identifier: GPL-2.0-or-later
#include "collector.h"

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <ctime>
#include <limits>

#include "base/log.h"
#include "thread_util.h"

namespace sm {
namespace {

double SteadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t UnixSeconds() { return static_cast<int64_t>(std::time(nullptr)); }

// Text and OpenMetrics of one endpoint and view are neighbours: Slot() % 2
// is the format.
size_t Slot(Endpoint e, View v, Format f) {
  return (static_cast<size_t>(e) * 2 + static_cast<size_t>(v)) * 2 +
         (f == Format::kOpenMetrics ? 1 : 0);
}

// A loop thread runs `step` and goes on whatever it throws: an exception
// leaving a std::thread would terminate slurmctld. Logging the failure may
// throw too (std::bad_alloc): then it is not logged.
template <class Step>
void LogFailure(const char* what, Step&& step) noexcept {
  try {
    try {
      step();
    } catch (const std::exception& e) {
      LogError(std::string(what) + ": " + e.what());
    } catch (...) {
      LogError(what);
    }
  } catch (...) {
  }
}

// What a render sizes its output after: the body it replaces, or nothing.
size_t TextSize(const std::shared_ptr<const Body>& body) {
  return body ? body->text().size() : 0;
}

}  // namespace

Collector::Collector(Source& source, CollectorOptions options,
                     SelfMonitoring& monitoring)
    : source_(source),
      options_(std::move(options)),
      monitoring_(monitoring),
      state_((options_.monotonic_now ? options_.monotonic_now
                                     : SteadySeconds)(),
             options_.finished_jobs) {
  if (!options_.monotonic_now) options_.monotonic_now = SteadySeconds;
  if (!options_.unix_now) options_.unix_now = UnixSeconds;
  if (options_.max_inflight < 1) options_.max_inflight = 1;
  // Rendering a 47 MB body nobody fetches cost a 50,000-job controller more
  // CPU than collecting; a scraper a few intervals apart keeps its body warm.
  const double interval =
      std::chrono::duration<double>(options_.interval).count();
  keep_seconds_ = std::max(3 * interval, 120.0);
  asked_.fill(-std::numeric_limits<double>::infinity());
  gzip_asked_.fill(-std::numeric_limits<double>::infinity());
  last_success_.fill(-std::numeric_limits<double>::infinity());
  monitoring_.SetCollectionInterval(interval);
  // The carrier's own paths are warm from the start, as if just asked for.
  const double now = options_.monotonic_now();
  for (Endpoint e : options_.endpoints) {
    asked_[Slot(e, View::kFull, Format::kText)] = now;
    kept_[Slot(e, View::kFull, Format::kText)] = true;
  }
  const auto& disabled = options_.disabled_families;
  for (int i = 0; i < kSubCollectorCount; ++i) {
    if (!kSubCollectors[i].families) continue;
    const auto families = kSubCollectors[i].families();
    skipped_[i] = !families.empty() &&
                  std::all_of(families.begin(), families.end(),
                              [&](const FamilyDef* f) {
                                return std::find(disabled.begin(), disabled.end(),
                                                 f->name) != disabled.end();
                              });
  }
}

// The runtime never destroys a collector whose Stop() returned non-zero
// (plugin/slurm/runtime.cc leaks it); others (tests, the shim) wait here
// until every thread, detached or not, has ended.
Collector::~Collector() {
  Stop(std::chrono::milliseconds::max());
  std::unique_lock lock(mu_);
  idle_cv_.wait(lock, [this] { return alive_ == 0; });
}

void Collector::Start(bool ticker) {
  std::lock_guard lock(mu_);
  if (started_) return;
  started_ = true;
  // Our threads must never take slurmctld's signals.
  BlockAllSignals blocked;
  const int workers = kSubCollectorCount * options_.max_inflight;
  // Each counts itself out as its very last step (Stop() may have
  // detached it).
  const auto ended = [this] {
    std::lock_guard count(mu_);
    --alive_;
    idle_cv_.notify_all();
  };
  for (int i = 0; i < workers; ++i) {
    if (skipped_[i % kSubCollectorCount]) continue;
    threads_.emplace_back([this, sub = i % kSubCollectorCount, ended] {
      NameThisThread("sm-collector");
      WorkerLoop(sub);
      ended();
    });
    // Counted once it exists (mu_ is held: it cannot end before): a
    // thread that could not be created (EAGAIN) is never waited for.
    ++alive_;
  }
  render_thread_ = std::thread([this] {
    NameThisThread("sm-render");
    LowerThisThreadPriority();
    RenderLoop();
  });
  if (ticker) {
    threads_.emplace_back([this, ended] {
      NameThisThread("sm-ticker");
      TickerLoop();
      ended();
    });
    ++alive_;
  }
}

int Collector::Stop(std::chrono::milliseconds grace) {
  StopRendering();  // tells every thread to stop, joins the render thread
  int busy;
  {
    // With stopping_ set no idle thread becomes busy again (WorkerLoop and
    // TickerLoop look at it under mu_ before they start work), so with
    // busy_ at 0 every join below returns once each thread has seen it.
    std::unique_lock lock(mu_);
    const auto idle = [this] { return busy_ == 0; };
    if (grace == std::chrono::milliseconds::max()) idle_cv_.wait(lock, idle);
    else if (grace.count() > 0) idle_cv_.wait_for(lock, grace, idle);
    busy = busy_;
  }
  if (busy == 0) {
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    return 0;
  }
  // One of them may be queued on a lock the caller holds: joining it
  // could wait for good. They all end on their own (RunTask drops what it
  // collected once stopping_ is set); what they read stays alive, leaked
  // by our owner. Let go of the collected state and the bodies meanwhile:
  // apply_mu_ and mu_ are never held while waiting for slurmctld.
  for (std::thread& t : threads_) t.detach();
  threads_.clear();
  {
    std::lock_guard lock(apply_mu_);
    stopped_ = true;  // a worker past RunTask's check applies nothing now
    state_ = CollectedState(options_.monotonic_now(), options_.finished_jobs);
  }
  {
    std::lock_guard lock(mu_);
    bodies_.fill(nullptr);
    ready_ = false;
  }
  return busy;
}

void Collector::StopRendering() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    queue_.clear();
  }
  // No new lock of slurmctld's or assoc_mgr's is taken from here on; a
  // collection between two slices of the job walk ends at the next one.
  source_.StopTakingLocks();
  cv_.notify_all();
  ready_cv_.notify_all();
  if (render_thread_.joinable()) render_thread_.join();
}

void Collector::CollectOnce() { StartTick(true); }

bool Collector::Ready() const {
  std::lock_guard lock(const_cast<std::mutex&>(mu_));
  return ready_;
}

Collector::Readiness Collector::GetReadiness() const {
  std::lock_guard lock(const_cast<std::mutex&>(mu_));
  if (standby_) return {false, "standby: this slurmctld is not the controller in charge"};
  if (!ready_) return {false, "no collection yet"};
  const double interval = std::chrono::duration<double>(options_.interval).count();
  const double now = options_.monotonic_now();
  double oldest = now;
  std::string_view which;
  for (int i = 0; i < kSubCollectorCount; ++i) {
    if (skipped_[i] || last_success_[i] >= oldest) continue;
    oldest = last_success_[i];
    which = kSubCollectors[i].name;
  }
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
  std::lock_guard lock(apply_mu_);
  if (state_.cluster.accounting)
    AddAccountingStatusFamilies(set, *state_.cluster.accounting);
}

void Collector::TickerLoop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    ++busy_;  // StartTick asks slurmctld (Active(), UpdateHidden())
    lock.unlock();
    LogFailure("collector tick failed", [this] { StartTick(false); });
    lock.lock();
    --busy_;
    if (stopping_) idle_cv_.notify_all();
    // Until slurmctld has loaded its state (or while it is a standby
    // backup) look again every second rather than every interval.
    const auto wait = ready_ ? options_.interval
                             : std::min<std::chrono::milliseconds>(
                                   options_.interval, std::chrono::seconds(1));
    cv_.wait_for(lock, wait, [this] { return stopping_; });
  }
}

void Collector::WorkerLoop(int sub) {
  std::unique_lock lock(mu_);
  const auto mine = [sub](const Task& t) { return t.sub == sub; };
  while (true) {
    cv_.wait(lock, [&] {
      return stopping_ || std::any_of(queue_.begin(), queue_.end(), mine);
    });
    if (stopping_) return;
    const auto it = std::find_if(queue_.begin(), queue_.end(), mine);
    Task task = std::move(*it);
    queue_.erase(it);
    ++busy_;
    lock.unlock();
    LogFailure("collection failed", [&] { RunTask(task); });
    lock.lock();
    --busy_;
    if (stopping_) idle_cv_.notify_all();
  }
}

void Collector::RenderLoop() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || render_pending_; });
    if (stopping_) return;
    render_pending_ = false;
    const uint64_t epoch = render_epoch_;
    lock.unlock();
    LogFailure("render failed", [this, epoch] { RenderAll(epoch); });
    lock.lock();
  }
}

void Collector::StartTick(bool synchronous) {
  const bool active = source_.Active();
  monitoring_.ControllerActive(active);
  {
    std::lock_guard lock(mu_);
    standby_ = !active;
  }
  if (!active) {
    Deactivate();
    return;
  }
  UpdateHidden();
  auto tick = std::make_shared<Tick>();
  tick->epoch = epoch_.load();
  tick->start = options_.monotonic_now();
  std::vector<Task> tasks;
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !synchronous) return;
    for (int i = 0; i < kSubCollectorCount; ++i) {
      if (skipped_[i]) continue;
      SubCollector& s = subs_[i];
      const std::string_view name = kSubCollectors[i].name;
      if (s.inflight >= options_.max_inflight) {
        monitoring_.CollectorSkipped(name);
        continue;
      }
      ++s.inflight;
      ++tick->started;
      monitoring_.CollectorStarted(name, s.inflight);
      tasks.push_back({i, ++s.next_sequence, tick, synchronous});
    }
    if (!synchronous) {
      for (Task& t : tasks) queue_.push_back(std::move(t));
    }
  }
  if (synchronous) {
    for (const Task& t : tasks) RunTask(t);
  } else {
    cv_.notify_all();
  }
}

void Collector::RunTask(const Task& task) {
  const double t0 = options_.monotonic_now();
  const int64_t unix_t0 = options_.unix_now();
  LockTiming timing;
  std::string error;
  Applier result;
  try {
    result = kSubCollectors[task.sub].collect(source_, timing, error);
  } catch (const std::exception& e) {
    error = e.what();
    result = nullptr;
  } catch (...) {
    error = "unknown exception";
    result = nullptr;
  }
  // Stopped meanwhile: what was collected is dropped, nothing is applied
  // or rendered, and the thread ends (Stop() may not have waited for it).
  if (!task.synchronous) {
    std::lock_guard lock(mu_);
    if (stopping_) {
      --subs_[task.sub].inflight;
      return;
    }
  }
  FinishTask(task, t0, unix_t0, timing, error, result);
}

void Collector::FinishTask(const Task& task, double t0, int64_t unix_t0,
                           const LockTiming& timing, const std::string& error,
                           const Applier& result) {
  const std::string_view name = kSubCollectors[task.sub].name;
  if (timing.used)
    monitoring_.LockUsed(name, timing.wait_seconds, timing.hold_seconds,
                         timing.list_wait_seconds);
  const bool failed = !result;
  bool applied = false;
  if (!failed && !(applied = Apply(task.sub, task.sequence, task.tick->epoch, result)))
    LogDebug("collector " + std::string(name) + ": stale result dropped");
  // Soperator's duration covers the fetch and the state update.
  const double seconds = options_.monotonic_now() - t0;
  bool tick_done = false;
  bool tick_failed = false;
  double tick_seconds = 0;
  std::string log_line;
  {
    std::lock_guard lock(mu_);
    SubCollector& s = subs_[task.sub];
    --s.inflight;
    log_line = failed ? NoteFailureLocked(task.sub, error) : NoteSuccessLocked(task.sub);
    monitoring_.CollectorFinished(name, seconds, failed, s.inflight);
    // Under mu_, like Deactivate()'s reset: a result dropped as stale never
    // counts, and one applied before a Deactivate() is forgotten by it.
    if (applied && task.tick->epoch == epoch_.load()) {
      last_success_[task.sub] = t0;
      monitoring_.CollectorSucceeded(name, static_cast<double>(unix_t0));
    }
    Tick& tick = *task.tick;
    ++tick.finished;
    tick.failed |= failed;
    if (tick.finished == tick.started) {
      tick_done = true;
      tick_failed = tick.failed;
      tick_seconds = options_.monotonic_now() - tick.start;
    }
  }
  if (!log_line.empty()) {
    if (failed) LogError(log_line);
    else LogInfo(log_line);
  }
  if (tick_done) {
    monitoring_.CollectionFinished(tick_seconds, tick_failed);
    if (task.synchronous) {
      RenderAll(task.tick->epoch);
    } else {
      {
        std::lock_guard lock(mu_);
        render_pending_ = true;
        render_epoch_ = task.tick->epoch;
      }
      cv_.notify_all();
    }
  }
}

// A sub-collector failing every interval (slurmdbd gone, a release
// difference) would write the same line every CollectionInterval: the
// first failure of a run is logged, then one line with the count at most
// every kFailureLogSeconds, and the recovery (tests/unit/collector_test.cc,
// FailuresAreLoggedNowAndThen). The counter families count every one.
std::string Collector::NoteFailureLocked(int sub, const std::string& error) {
  SubCollector& s = subs_[sub];
  const double now = options_.monotonic_now();
  ++s.failures;
  const std::string name(kSubCollectors[sub].name);
  const std::string why = error.empty() ? "no data" : error;
  std::string line;
  if (s.failures == 1) {
    line = "collector " + name + " failed: " + why +
           " (while it keeps failing, a line every " +
           std::to_string(static_cast<int>(kFailureLogSeconds)) + " s)";
  } else if (now - s.failure_logged_at >= kFailureLogSeconds) {
    line = "collector " + name + " still failing: " +
           std::to_string(s.failures - s.failures_logged) + " more failure(s), " +
           std::to_string(s.failures) + " in a row; the last: " + why;
  } else {
    return line;
  }
  s.failures_logged = s.failures;
  s.failure_logged_at = now;
  return line;
}

std::string Collector::NoteSuccessLocked(int sub) {
  SubCollector& s = subs_[sub];
  if (s.failures == 0) return "";
  const std::string line = "collector " + std::string(kSubCollectors[sub].name) +
                           " recovered after " + std::to_string(s.failures) +
                           " failed collection(s)";
  s.failures = 0;
  s.failures_logged = 0;
  return line;
}

bool Collector::Apply(int sub, uint64_t sequence, uint64_t epoch,
                      const Applier& apply) {
  std::lock_guard lock(apply_mu_);
  if (stopped_) return false;
  // Collected before this controller went to standby: stale now.
  if (epoch != epoch_.load()) return false;
  SubCollector& s = subs_[sub];
  // Only possible with max_inflight > 1: an older run finishing last.
  if (sequence != 0 && sequence <= s.applied_sequence) return false;
  s.applied_sequence = sequence;
  state_.unix_now = options_.unix_now();
  apply(state_, options_.monotonic_now());
  active_ = true;
  return true;
}

void Collector::RenderEndpoint(Endpoint e, PrivateData hidden,
                               const std::array<bool, 2>& formats,
                               const std::array<size_t, 2>& reserve,
                               const std::array<const Body*, 2>& earlier,
                               std::array<std::shared_ptr<const Body>, 2>& out,
                               WriteStats& stats, size_t& groups_taken,
                               bool take_groups) {
  MetricSet set(&options_.disabled_families, hidden);
  // What the new bodies may copy from: the bodies they replace. A family
  // that one format cannot copy is sealed when that format is written.
  std::array<EarlierBody, 2> from{};
  std::vector<const EarlierBody*> copy_from;
  GroupReuse reuse;
  bool every_format_has_one = true;
  for (size_t i = 0; i < 2; ++i) {
    if (!formats[i]) continue;
    if (!earlier[i]) {
      every_format_has_one = false;
      continue;
    }
    from[i] = earlier[i]->AsEarlier();
    copy_from.push_back(&from[i]);
    reuse.earlier.push_back(earlier[i]->group_keys());
  }
  // Groups are taken from the earlier bodies only when each format written
  // has one (a group taken has no rows to write a format from).
  if (!take_groups || !every_format_has_one) reuse.earlier.clear();
  AddEndpointFamilies(set, e, state_.cluster, state_.history,
                      {options_.unix_now(), options_.native_values,
                       options_.pending_user_label, options_.node_info_nodeset},
                      &state_.queue_wait,
                      options_.incremental_render ? &reuse : nullptr);
  if (!options_.incremental_render) set.Seal();
  else set.SealReusing(copy_from);
  std::array<std::string, 2> texts;
  std::array<std::vector<WrittenFamily>, 2> written;
  for (Format f : {Format::kText, Format::kOpenMetrics}) {
    const size_t i = f == Format::kOpenMetrics ? 1 : 0;
    if (!formats[i] || set.copy_failed()) continue;
    texts[i].reserve(reserve[i]);
    set.Write(f, texts[i], earlier[i] ? &from[i] : nullptr, &written[i]);
  }
  if (set.copy_failed()) {
    // Not expected (the keys say the earlier bodies hold every family taken),
    // but a body is never served short of families: build them all.
    static std::atomic<bool> logged{false};
    if (!logged.exchange(true))
      LogError("render: a group of families could not be taken from the body "
               "it replaces; built again");
    RenderEndpoint(e, hidden, formats, reserve, earlier, out, stats, groups_taken,
                   false);
    return;
  }
  groups_taken += reuse.taken;
  for (size_t i = 0; i < 2; ++i) {
    if (!formats[i]) continue;
    const auto copied = static_cast<uint64_t>(std::count_if(
        written[i].begin(), written[i].end(),
        [](const WrittenFamily& w) { return w.reused; }));
    stats.families_reused += copied;
    stats.families_written += written[i].size() - copied;
    out[i] = std::make_shared<const Body>(std::move(texts[i]), set.stats().series,
                                          std::move(written[i]), reuse.keys);
  }
  stats.series += set.stats().series;
  stats.duplicates_dropped += set.stats().duplicates_dropped;
  stats.utf8_repaired += set.stats().utf8_repaired;
  stats.labels_truncated += set.stats().labels_truncated;
}

struct Collector::RenderPlan {
  // What the public view leaves out, as the plan was made: the public
  // bodies are made with it, and published only if it is still current.
  PrivateData hidden = 0;
  std::array<bool, kSlots> wanted{};
  std::array<bool, kSlots> gzip{};
  // The bodies the fresh ones replace, held until they are published.
  std::array<std::shared_ptr<const Body>, kSlots> earlier;
  std::array<std::shared_ptr<const Body>, kSlots> fresh;
};

void Collector::PlanRendersLocked(double now, RenderPlan& plan) {
  // The most recently asked for first: they keep their place under the
  // limit, by the size of their last render (a new one may differ; the
  // publish below checks again).
  std::array<size_t, kSlots> order;
  for (size_t i = 0; i < kSlots; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [this](size_t a, size_t b) { return asked_[a] > asked_[b]; });
  const uint64_t limit = LimitLocked(now);
  uint64_t planned = 0;
  plan.hidden = hidden_.load();
  for (size_t i : order) {
    if (!kept_[i]) continue;
    if (now - asked_[i] > keep_seconds_) {
      kept_[i] = false;  // nobody asked lately: dropped, no longer rendered
      continue;
    }
    const bool compressed = now - gzip_asked_[i] <= keep_seconds_;
    const uint64_t cost = last_bytes_[i] + (compressed ? last_bytes_[i] / 4 : 0);
    if (planned + cost > limit) {
      kept_[i] = false;  // does not fit: rendered per request from now on
      continue;
    }
    planned += cost;
    plan.wanted[i] = true;
    plan.gzip[i] = compressed;
    plan.earlier[i] = bodies_[i];
  }
}

bool Collector::RenderPlanned(RenderPlan& plan, WriteStats& stats) {
  bool rendered = false;
  size_t groups_taken = 0;
  // Public views exist only while something is hidden (see Get()).
  const bool views_differ = plan.hidden != 0;
  for (int e = 0; e < kEndpointCount; ++e) {
    for (View view : {View::kFull, View::kPublic}) {
      if (view == View::kPublic && !views_differ) continue;
      const auto endpoint = static_cast<Endpoint>(e);
      const size_t text = Slot(endpoint, view, Format::kText);
      const size_t om = Slot(endpoint, view, Format::kOpenMetrics);
      if (!plan.wanted[text] && !plan.wanted[om]) continue;
      std::array<std::shared_ptr<const Body>, 2> bodies;
      {
        std::lock_guard lock(apply_mu_);
        RenderEndpoint(endpoint, view == View::kPublic ? plan.hidden : PrivateData{0},
                       {plan.wanted[text], plan.wanted[om]},
                       {TextSize(plan.earlier[text]), TextSize(plan.earlier[om])},
                       {plan.earlier[text].get(), plan.earlier[om].get()}, bodies,
                       stats, groups_taken);
      }
      plan.fresh[text] = std::move(bodies[0]);
      plan.fresh[om] = std::move(bodies[1]);
      rendered = true;
    }
  }
  // Compress outside apply_mu_ so a finishing collection is not held up.
  // Pieces the body it replaces has are copied from that one's gzip form.
  for (size_t i = 0; i < plan.fresh.size(); ++i) {
    if (!plan.fresh[i] || !plan.gzip[i]) continue;
    const Body* earlier = options_.incremental_render ? plan.earlier[i].get() : nullptr;
    plan.fresh[i]->gzipped(earlier);
    stats.gzip_pieces_reused += plan.fresh[i]->gzip_pieces_reused();
    stats.gzip_pieces_compressed +=
        plan.fresh[i]->gzip_pieces() - plan.fresh[i]->gzip_pieces_reused();
  }
  if (rendered)
    LogDebug("render: " + std::to_string(groups_taken) +
             " group(s) of families taken from the bodies replaced");
  return rendered;
}

bool Collector::PublishLocked(uint64_t epoch, RenderPlan& plan) {
  // Deactivate() bumps the epoch before it clears the bodies under mu_:
  // either we see the bump here, or it clears what we publish.
  if (epoch != epoch_.load()) return false;
  for (size_t i = 0; i < plan.fresh.size(); ++i) {
    if (plan.fresh[i]) last_bytes_[i] = plan.fresh[i]->text().size();
    if (plan.wanted[i] && !MaskCurrent(i, plan.hidden)) {
      // PrivateData changed while this render ran: UpdateHidden() cleared
      // the public bodies, and one made with the old mask never comes
      // back (tests/unit/collector_test.cc,
      // PublicBodyOfAnOldPrivateDataIsNeverServed).
      bodies_[i] = nullptr;
    } else if (plan.wanted[i]) {
      bodies_[i] = std::move(plan.fresh[i]);
    } else if (!kept_[i]) {
      // Not asked for lately, or no room: dropped (a scrape still sending
      // it keeps its own reference). One a request kept during this
      // render (kept_ again) stays.
      bodies_[i] = nullptr;
    }
  }
  // The new renders by their real sizes: the least recently asked for go
  // if they no longer fit.
  FitLocked(options_.monotonic_now());
  ready_ = true;
  return true;
}

void Collector::RenderAll(uint64_t epoch) {
  if (epoch != epoch_.load()) return;
  RenderPlan plan;
  {
    std::lock_guard lock(mu_);
    PlanRendersLocked(options_.monotonic_now(), plan);
  }
  // The gauge covers the whole pass: every wanted endpoint and format, and
  // the compression of those scraped with gzip.
  const double t0 = options_.monotonic_now();
  WriteStats stats;
  if (RenderPlanned(plan, stats))
    monitoring_.Rendered(options_.monotonic_now() - t0, stats);
  {
    std::lock_guard lock(mu_);
    if (!PublishLocked(epoch, plan)) return;
  }
  ready_cv_.notify_all();
}

uint64_t Collector::CachedBytesLocked() const {
  uint64_t bytes = 0;
  for (const auto& body : bodies_) {
    if (body) bytes += body->text().size() + body->gzipped_size();
  }
  return bytes;
}

uint64_t Collector::LimitLocked(double now) const {
  if (options_.cached_body_limit) return options_.cached_body_limit;
  uint64_t largest = 0;
  for (size_t i = 0; i < kSlots; ++i) {
    if (now - asked_[i] <= keep_seconds_) largest = std::max(largest, last_bytes_[i]);
  }
  return std::max(kMinCachedBodyLimit, kCachedBodyLimitFactor * largest);
}

void Collector::FitLocked(double now, size_t keep) {
  const uint64_t limit = LimitLocked(now);
  uint64_t bytes = CachedBytesLocked();
  while (bytes > limit) {
    // The stalest first: not asked for within keep_seconds_ counts as
    // oldest anyway, since asked_ is older still.
    size_t victim = kSlots;
    for (size_t i = 0; i < kSlots; ++i) {
      if (!bodies_[i] || i == keep) continue;
      if (victim == kSlots || asked_[i] < asked_[victim]) victim = i;
    }
    if (victim == kSlots) break;
    bytes -= bodies_[victim]->text().size() + bodies_[victim]->gzipped_size();
    bodies_[victim] = nullptr;
    kept_[victim] = false;
  }
  monitoring_.CachedBodies(bytes, limit);
}

std::shared_ptr<const Body> Collector::Get(Endpoint e, Format f, View view,
                                           bool gzip) {
  Served served = Serve(e, f, view, gzip, std::chrono::milliseconds(0));
  return served.body ? std::move(served.body) : Body::Empty();
}

struct Collector::Admission {
  uint64_t reserved = 0;  // bytes reserved under the limit to keep it
  bool uncached = false;  // rendered for this request alone
  size_t cost_hint = 0;   // its last render's size
};

bool Collector::LookUpLocked(std::unique_lock<std::mutex>& lock, size_t slot,
                             bool gzip, std::chrono::milliseconds wait_ready,
                             OnRequest on_request, Served& served, Admission& admit) {
  const double now = options_.monotonic_now();
  asked_[slot] = now;
  if (gzip) gzip_asked_[slot] = now;
  // A standby has nothing coming: no wait. Otherwise the first render
  // usually follows within a second or two of start.
  if (!ready_ && !standby_ && wait_ready.count() > 0)
    ready_cv_.wait_for(lock, wait_ready, [this] { return ready_ || stopping_; });
  // A gzip form made since the last look counts from now on.
  FitLocked(now, slot);
  if (bodies_[slot]) {
    served.body = bodies_[slot];
    if (gzip && served.body->gzipped_size() == 0) {
      // The scrape would compress it into the cache (about a quarter of
      // the text at most, level 1): only if that fits.
      served.may_gzip = CachedBytesLocked() + reserved_ + served.body->text().size() / 4 <=
                        LimitLocked(now);
    }
    return true;
  }
  if (!ready_) {
    served.status = Served::Status::kNotReady;
    return true;
  }
  if (on_request == OnRequest::kCachedOnly) {
    served.status = Served::Status::kNotCached;
    return true;
  }
  // What keeping it would cost, by its last render (or the largest body,
  // never rendered yet).
  uint64_t cost = last_bytes_[slot];
  if (!cost) {
    for (uint64_t b : last_bytes_) cost = std::max(cost, b);
  }
  admit.cost_hint = last_bytes_[slot];
  cost += gzip ? cost / 4 : 0;
  if (CachedBytesLocked() + reserved_ + cost <= LimitLocked(now)) {
    reserved_ += cost;
    admit.reserved = cost;
  } else if (uncached_inflight_ < kMaxUncachedRenders &&
             uncached_held_->load() + cost <= LimitLocked(now)) {
    ++uncached_inflight_;
    admit.uncached = true;
  } else {
    monitoring_.UncachedRequest(/*refused=*/true);
    served.status = Served::Status::kBusy;
    return true;
  }
  return false;
}

// Renders it now from the current state (our own locks only; slurmctld's
// are never taken here).
std::shared_ptr<const Body> Collector::RenderOnRequest(Endpoint e, View view,
                                                       size_t slot, size_t size_hint,
                                                       uint64_t& epoch,
                                                       PrivateData& hidden) {
  std::array<bool, 2> formats{};
  formats[slot % 2] = true;
  // Sized after its last render: one allocation, not a doubling series.
  std::array<size_t, 2> reserve{};
  reserve[slot % 2] = size_hint;
  std::array<std::shared_ptr<const Body>, 2> bodies;
  WriteStats stats;
  std::lock_guard lock(apply_mu_);
  epoch = epoch_.load();
  hidden = view == View::kPublic ? hidden_.load() : PrivateData{0};
  // No earlier body: a slot rendered per request has none kept.
  size_t groups_taken = 0;
  RenderEndpoint(e, hidden, formats, reserve, {}, bodies, stats, groups_taken);
  return std::move(bodies[slot % 2]);
}

bool Collector::MaskCurrent(size_t slot, PrivateData hidden) const {
  if ((slot / 2) % 2 != static_cast<size_t>(View::kPublic)) return true;
  return hidden == hidden_.load();
}

Collector::Served Collector::HandOutLocked(size_t slot, uint64_t epoch,
                                           PrivateData hidden,
                                           std::shared_ptr<const Body> body,
                                           const Admission& admit) {
  Served served;
  // As in RenderAll: what was rendered before a Deactivate() is not served.
  if (epoch != epoch_.load()) {
    served.status = Served::Status::kNotReady;
    return served;
  }
  // Nor a public body made with a PrivateData mask that has changed since:
  // busy, so the scraper comes again and gets one made with the new one.
  if (!MaskCurrent(slot, hidden)) {
    served.status = Served::Status::kBusy;
    return served;
  }
  last_bytes_[slot] = body->text().size();
  if (bodies_[slot]) {  // another request kept it meanwhile
    served.body = bodies_[slot];
    return served;
  }
  const double now = options_.monotonic_now();
  // Once stopping, nothing more is kept: a stopped collector may be leaked.
  if (!admit.uncached && !stopping_ && CachedBytesLocked() + (reserved_ - admit.reserved) +
                                 body->text().size() <=
                             LimitLocked(now)) {
    // Kept: RenderAll keeps it fresh while it is asked for.
    bodies_[slot] = body;
    kept_[slot] = true;
    FitLocked(now, slot);
    served.body = std::move(body);
    return served;
  }
  // Served to this request alone: never kept, so the cache never grows
  // past the limit (docs/configuration.md, "Cached bodies"). Once sent and
  // freed, its pages go back to the kernel: glibc would keep them in the
  // arena of the thread that rendered it, so each uncached render would
  // leave slurmctld a body larger (tests/shim/cached_bodies.py).
  monitoring_.UncachedRequest(/*refused=*/false);
  const Body* raw = body.get();
  // Its gzip form, if the request makes one, counts at a quarter of the
  // text, as in LookUpLocked.
  const uint64_t held_bytes = raw->text().size() + raw->text().size() / 4;
  *uncached_held_ += held_bytes;
  served.body = std::shared_ptr<const Body>(
      raw, [held = std::move(body), count = uncached_held_, held_bytes](const Body*) mutable {
        held.reset();
        *count -= held_bytes;
        malloc_trim(0);
      });
  return served;
}

Collector::Served Collector::Serve(Endpoint e, Format f, View view, bool gzip,
                                   std::chrono::milliseconds wait_ready,
                                   OnRequest on_request) {
  Served served;
  Admission admit;
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
    const Admission& admit;
    ~Release() {
      std::lock_guard lock(c.mu_);
      c.reserved_ -= admit.reserved;
      if (admit.uncached) --c.uncached_inflight_;
    }
  } release{*this, admit};
  uint64_t epoch = 0;
  PrivateData hidden = 0;
  std::shared_ptr<const Body> body =
      RenderOnRequest(e, view, slot, admit.cost_hint, epoch, hidden);
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
    if (hidden_.exchange(hidden) != hidden) {
      for (size_t i = 0; i < bodies_.size(); ++i) {
        if ((i / 2) % 2 == static_cast<size_t>(View::kPublic)) bodies_[i] = nullptr;
      }
    }
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
  bool was_active;
  {
    std::lock_guard lock(apply_mu_);
    // At every inactive tick, not only the first: a tick started while
    // active may still be collecting, and must neither apply nor publish.
    ++epoch_;
    was_active = active_;
    if (was_active) {
      active_ = false;
      // A standby controller must not serve what it saw before: start over.
      state_ = CollectedState(options_.monotonic_now(), options_.finished_jobs);
    }
  }
  {
    std::lock_guard lock(mu_);
    bodies_.fill(nullptr);
    ready_ = false;
    last_success_.fill(-std::numeric_limits<double>::infinity());
  }
  if (was_active) LogInfo("controller not active: metrics cleared until it is");
}

}  // namespace sm
