// SPDX-License-Identifier: GPL-2.0-or-later
#include "collector.h"

#include <algorithm>
#include <csignal>
#include <ctime>
#include <limits>

#include "log.h"
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
// leaving a std::thread would terminate slurmctld.
template <class Step>
void LogFailure(const char* what, Step&& step) {
  try {
    step();
  } catch (const std::exception& e) {
    LogError(std::string(what) + ": " + e.what());
  } catch (...) {
    LogError(what);
  }
}

}  // namespace

Collector::Collector(Source& source, CollectorOptions options,
                     SelfMonitoring& monitoring)
    : source_(source),
      options_(std::move(options)),
      monitoring_(monitoring),
      state_((options_.monotonic_now ? options_.monotonic_now
                                     : SteadySeconds)()) {
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
  // The carrier's own paths are warm from the start, as if just asked for.
  const double now = options_.monotonic_now();
  for (Endpoint e : options_.endpoints)
    asked_[Slot(e, View::kFull, Format::kText)] = now;
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

Collector::~Collector() { Stop(); }

void Collector::Start(bool ticker) {
  std::lock_guard lock(mu_);
  if (started_) return;
  started_ = true;
  // Our threads must never take slurmctld's signals.
  BlockAllSignals blocked;
  const int workers = kSubCollectorCount * options_.max_inflight;
  for (int i = 0; i < workers; ++i) {
    if (skipped_[i % kSubCollectorCount]) continue;
    threads_.emplace_back([this, sub = i % kSubCollectorCount] {
      NameThisThread("sm-collector");
      WorkerLoop(sub);
    });
  }
  render_thread_ = std::thread([this] {
    NameThisThread("sm-render");
    LowerThisThreadPriority();
    RenderLoop();
  });
  if (ticker)
    threads_.emplace_back([this] {
      NameThisThread("sm-ticker");
      TickerLoop();
    });
}

void Collector::Stop() {
  StopRendering();  // tells every thread to stop, joins the render thread
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void Collector::StopRendering() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  if (render_thread_.joinable()) render_thread_.join();
}

void Collector::CollectOnce() { StartTick(true); }

bool Collector::Ready() const {
  std::lock_guard lock(const_cast<std::mutex&>(mu_));
  return ready_;
}

void Collector::AddStateFamilies(MetricSet& set) {
  std::lock_guard lock(apply_mu_);
  if (state_.cluster.accounting)
    AddAccountingStatusFamilies(set, *state_.cluster.accounting);
}

void Collector::TickerLoop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    LogFailure("collector tick failed", [this] { StartTick(false); });
    lock.lock();
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
    lock.unlock();
    RunTask(task);
    lock.lock();
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
  if (!source_.Active()) {
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
  LockTiming timing;
  std::string error;
  Applier result;
  const SubCollectorDef& def = kSubCollectors[task.sub];
  try {
    result = def.collect(source_, timing, error);
  } catch (const std::exception& e) {
    error = e.what();
    result = nullptr;
  } catch (...) {
    error = "unknown exception";
    result = nullptr;
  }
  const std::string_view name = def.name;
  if (timing.used)
    monitoring_.LockUsed(name, timing.wait_seconds, timing.hold_seconds,
                         timing.list_wait_seconds);
  const bool failed = !result;
  if (failed) {
    LogError("collector " + std::string(name) + " failed: " +
             (error.empty() ? "no data" : error));
  } else if (!Apply(task.sub, task.sequence, task.tick->epoch, result)) {
    LogDebug("collector " + std::string(name) + ": stale result dropped");
  }
  // Soperator's duration covers the fetch and the state update.
  const double seconds = options_.monotonic_now() - t0;
  bool tick_done = false;
  bool tick_failed = false;
  double tick_seconds = 0;
  {
    std::lock_guard lock(mu_);
    SubCollector& s = subs_[task.sub];
    --s.inflight;
    monitoring_.CollectorFinished(name, seconds, failed, s.inflight);
    Tick& tick = *task.tick;
    ++tick.finished;
    tick.failed |= failed;
    if (tick.finished == tick.started) {
      tick_done = true;
      tick_failed = tick.failed;
      tick_seconds = options_.monotonic_now() - tick.start;
    }
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

bool Collector::Apply(int sub, uint64_t sequence, uint64_t epoch,
                      const Applier& apply) {
  std::lock_guard lock(apply_mu_);
  // Collected before this controller went to standby: stale now.
  if (epoch != epoch_.load()) return false;
  SubCollector& s = subs_[sub];
  // Only possible with max_inflight > 1: an older run finishing last.
  if (sequence != 0 && sequence <= s.applied_sequence) return false;
  s.applied_sequence = sequence;
  apply(state_, options_.monotonic_now());
  active_ = true;
  return true;
}

void Collector::RenderEndpoint(Endpoint e, View view,
                               const std::array<bool, 2>& formats,
                               const std::array<size_t, 2>& reserve,
                               std::array<std::shared_ptr<const Body>, 2>& out,
                               WriteStats& stats) {
  MetricSet set(&options_.disabled_families,
                view == View::kPublic ? hidden_.load() : PrivateData{0});
  AddEndpointFamilies(set, e, state_.cluster, state_.history,
                      {options_.unix_now(), options_.native_values,
                       options_.pending_user_label},
                      &state_.queue_wait);
  set.Seal();
  for (Format f : {Format::kText, Format::kOpenMetrics}) {
    const size_t i = f == Format::kOpenMetrics ? 1 : 0;
    if (!formats[i]) continue;
    std::string text;
    text.reserve(reserve[i]);
    set.Write(f, text);
    out[i] = std::make_shared<const Body>(std::move(text), set.stats().series);
  }
  stats.series += set.stats().series;
  stats.duplicates_dropped += set.stats().duplicates_dropped;
  stats.utf8_repaired += set.stats().utf8_repaired;
  stats.labels_truncated += set.stats().labels_truncated;
}

void Collector::RenderAll(uint64_t epoch) {
  if (epoch != epoch_.load()) return;
  std::array<bool, kSlots> wanted, gzip;
  std::array<size_t, kSlots> previous_size{};
  {
    std::lock_guard lock(mu_);
    const double now = options_.monotonic_now();
    for (size_t i = 0; i < bodies_.size(); ++i) {
      wanted[i] = now - asked_[i] <= keep_seconds_;
      gzip[i] = wanted[i] && now - gzip_asked_[i] <= keep_seconds_;
      if (bodies_[i]) previous_size[i] = bodies_[i]->text().size();
    }
  }
  std::array<std::shared_ptr<const Body>, kSlots> fresh;
  // The gauge covers the whole pass: every wanted endpoint and format, and
  // the compression of those scraped with gzip.
  const double t0 = options_.monotonic_now();
  WriteStats stats;
  bool rendered = false;
  // Public views exist only while something is hidden (see Get()).
  const bool views_differ = hidden_.load() != 0;
  for (int e = 0; e < kEndpointCount; ++e) {
    for (View view : {View::kFull, View::kPublic}) {
      if (view == View::kPublic && !views_differ) continue;
      const auto endpoint = static_cast<Endpoint>(e);
      const size_t text = Slot(endpoint, view, Format::kText);
      const size_t om = Slot(endpoint, view, Format::kOpenMetrics);
      if (!wanted[text] && !wanted[om]) continue;
      std::array<std::shared_ptr<const Body>, 2> bodies;
      {
        std::lock_guard lock(apply_mu_);
        RenderEndpoint(endpoint, view, {wanted[text], wanted[om]},
                       {previous_size[text], previous_size[om]}, bodies, stats);
      }
      fresh[text] = std::move(bodies[0]);
      fresh[om] = std::move(bodies[1]);
      rendered = true;
    }
  }
  // Compress outside apply_mu_ so a finishing collection is not held up.
  for (size_t i = 0; i < fresh.size(); ++i) {
    if (fresh[i] && gzip[i]) fresh[i]->gzipped();
  }
  if (rendered) monitoring_.Rendered(options_.monotonic_now() - t0, stats);
  uint64_t cached_bytes = 0;
  {
    std::lock_guard lock(mu_);
    // Deactivate() bumps the epoch before it clears the bodies under mu_:
    // either we see the bump here, or it clears what we publish.
    if (epoch != epoch_.load()) return;
    for (size_t i = 0; i < fresh.size(); ++i) {
      // Not asked for lately: dropped (a scrape still sending it keeps its
      // own reference).
      bodies_[i] = wanted[i] ? std::move(fresh[i]) : nullptr;
      if (bodies_[i]) {
        cached_bytes += bodies_[i]->text().size();
        if (gzip[i]) cached_bytes += bodies_[i]->gzipped().size();
      }
    }
    ready_ = true;
  }
  monitoring_.CachedBodies(cached_bytes);
}

std::shared_ptr<const Body> Collector::Get(Endpoint e, Format f, View view,
                                           bool gzip) {
  // With nothing hidden the public view is the full one: one body, one
  // render. hidden_ only changes at a tick, before that tick's render.
  if (hidden_.load() == 0) view = View::kFull;
  const size_t slot = Slot(e, view, f);
  {
    std::lock_guard lock(mu_);
    const double now = options_.monotonic_now();
    asked_[slot] = now;
    if (gzip) gzip_asked_[slot] = now;
    if (bodies_[slot]) return bodies_[slot];
    if (!ready_) return Body::Empty();
  }
  // Not rendered: render it now from the current state (our own locks
  // only; slurmctld's are never taken here). From now on RenderAll keeps it
  // fresh while it is asked for.
  std::array<bool, 2> formats{};
  formats[slot % 2] = true;
  std::array<std::shared_ptr<const Body>, 2> bodies;
  WriteStats stats;
  uint64_t epoch;
  {
    std::lock_guard lock(apply_mu_);
    epoch = epoch_.load();
    RenderEndpoint(e, view, formats, {0, 0}, bodies, stats);
  }
  std::lock_guard lock(mu_);
  // As in RenderAll: what was rendered before a Deactivate() is not served.
  if (epoch != epoch_.load()) return Body::Empty();
  if (!bodies_[slot]) bodies_[slot] = std::move(bodies[slot % 2]);
  return bodies_[slot];
}

void Collector::UpdateHidden() {
  const PrivateData configured = source_.HiddenFromUsers();
  const PrivateData hidden = options_.ignore_private_data ? PrivateData{0} : configured;
  const PrivateData before = hidden_.exchange(hidden);
  if (hidden != before) {
    // Public bodies made for another PrivateData: re-rendered on request.
    std::lock_guard lock(mu_);
    for (size_t i = 0; i < bodies_.size(); ++i) {
      if ((i / 2) % 2 == static_cast<size_t>(View::kPublic)) bodies_[i] = nullptr;
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
      state_ = CollectedState(options_.monotonic_now());
    }
  }
  {
    std::lock_guard lock(mu_);
    bodies_.fill(nullptr);
    ready_ = false;
  }
  if (was_active) LogInfo("controller not active: metrics cleared until it is");
}

}  // namespace sm
