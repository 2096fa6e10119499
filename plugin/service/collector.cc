// SPDX-License-Identifier: GPL-2.0-or-later
#include "collector.h"

#include <zlib.h>

#include <algorithm>
#include <csignal>
#include <ctime>

#include "log.h"
#include "thread_util.h"

namespace sm {
namespace {

enum SubIndex { kNodes = 0, kJobs = 1, kDiag = 2 };

double SteadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t UnixSeconds() { return static_cast<int64_t>(std::time(nullptr)); }

size_t Slot(Endpoint e, Format f) {
  return static_cast<size_t>(e) * 2 + (f == Format::kOpenMetrics ? 1 : 0);
}

std::string Gzip(const std::string& in) {
  z_stream zs{};
  // windowBits 15 + 16 asks zlib for a gzip header. Level 1: the body is
  // re-made every interval, so speed matters more than the last percent.
  if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return {};
  std::string out;
  out.resize(deflateBound(&zs, in.size()));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return rc == Z_STREAM_END ? out : std::string();
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

const std::string& Body::gzipped() const {
  std::call_once(gzip_once_, [this] { gzipped_ = Gzip(text_); });
  return gzipped_;
}

Collector::Collector(Source& source, CollectorOptions options,
                     SelfMonitoring& monitoring)
    : source_(source),
      options_(std::move(options)),
      monitoring_(monitoring),
      history_((options_.monotonic_now ? options_.monotonic_now
                                       : SteadySeconds)()) {
  if (!options_.monotonic_now) options_.monotonic_now = SteadySeconds;
  if (!options_.unix_now) options_.unix_now = UnixSeconds;
  if (options_.max_inflight < 1) options_.max_inflight = 1;
  subs_[kNodes].name = "nodes";
  subs_[kJobs].name = "jobs";
  subs_[kDiag].name = "diag";
  for (Endpoint e : options_.endpoints) wanted_[Slot(e, Format::kText)] = true;
}

Collector::~Collector() { Stop(); }

void Collector::Start(bool ticker) {
  std::lock_guard lock(mu_);
  if (started_) return;
  started_ = true;
  // Our threads must never take slurmctld's signals.
  BlockAllSignals blocked;
  const int workers = kSubCollectors * options_.max_inflight;
  for (int i = 0; i < workers; ++i)
    threads_.emplace_back([this, sub = i % kSubCollectors] {
      NameThisThread("sm-collector");
      WorkerLoop(sub);
    });
  threads_.emplace_back([this] {
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
  {
    std::lock_guard lock(mu_);
    if (stopping_ || !started_) {
      stopping_ = true;
      return;
    }
    stopping_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void Collector::CollectOnce() { StartTick(true); }

bool Collector::Ready() const {
  std::lock_guard lock(const_cast<std::mutex&>(mu_));
  return ready_;
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
  auto tick = std::make_shared<Tick>();
  tick->epoch = epoch_.load();
  tick->start = options_.monotonic_now();
  std::vector<Task> tasks;
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !synchronous) return;
    for (int i = 0; i < kSubCollectors; ++i) {
      SubCollector& s = subs_[i];
      if (s.inflight >= options_.max_inflight) {
        monitoring_.CollectorSkipped(s.name);
        continue;
      }
      ++s.inflight;
      ++tick->started;
      monitoring_.CollectorStarted(s.name, s.inflight);
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
  std::shared_ptr<void> result;
  try {
    switch (task.sub) {
      case kNodes: result = source_.CollectNodes(timing, error); break;
      case kJobs: result = source_.CollectJobs(timing, error); break;
      case kDiag: result = source_.CollectDiag(timing, error); break;
    }
  } catch (const std::exception& e) {
    error = e.what();
    result.reset();
  } catch (...) {
    error = "unknown exception";
    result.reset();
  }
  const char* name = subs_[task.sub].name;
  if (timing.used)
    monitoring_.LockUsed(name, timing.wait_seconds, timing.hold_seconds);
  bool failed = !result;
  if (failed) {
    LogError(std::string("collector ") + name + " failed: " +
             (error.empty() ? "no data" : error));
  } else if (!Apply(task.sub, task.sequence, task.tick->epoch,
                    std::move(result))) {
    LogDebug(std::string("collector ") + name + ": stale result dropped");
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
                      std::shared_ptr<void> result) {
  std::lock_guard lock(apply_mu_);
  // Collected before this controller went to standby: stale now.
  if (epoch != epoch_.load()) return false;
  SubCollector& s = subs_[sub];
  // Only possible with max_inflight > 1: an older run finishing last.
  if (sequence != 0 && sequence <= s.applied_sequence) return false;
  s.applied_sequence = sequence;
  switch (sub) {
    case kNodes: {
      auto nodes = std::static_pointer_cast<NodeSnapshot>(result);
      history_.Observe(*nodes, options_.monotonic_now());
      state_.nodes = std::move(nodes);
      break;
    }
    case kJobs:
      state_.jobs = std::static_pointer_cast<JobSnapshot>(result);
      break;
    case kDiag:
      state_.diag = std::static_pointer_cast<DiagSnapshot>(result);
      break;
  }
  active_ = true;
  return true;
}

void Collector::RenderAll(uint64_t epoch) {
  if (epoch != epoch_.load()) return;
  std::array<bool, kEndpointCount * 2> wanted, gzip;
  {
    std::lock_guard lock(mu_);
    wanted = wanted_;
    gzip = gzip_wanted_;
  }
  std::array<std::shared_ptr<const Body>, kEndpointCount * 2> fresh;
  // The gauge covers the whole pass: every wanted endpoint and format, and
  // the compression of those scraped with gzip.
  const double t0 = options_.monotonic_now();
  WriteStats stats;
  bool rendered = false;
  for (int e = 0; e < kEndpointCount; ++e) {
    const auto endpoint = static_cast<Endpoint>(e);
    const bool text = wanted[Slot(endpoint, Format::kText)];
    const bool om = wanted[Slot(endpoint, Format::kOpenMetrics)];
    if (!text && !om) continue;
    std::lock_guard lock(apply_mu_);
    MetricSet set(&options_.disabled_families);
    AddEndpointFamilies(set, endpoint, state_, history_,
                        {options_.unix_now(), options_.native_values});
    set.Seal();
    for (Format f : {Format::kText, Format::kOpenMetrics}) {
      if (!wanted[Slot(endpoint, f)]) continue;
      std::string out;
      if (const auto& old = bodies_[Slot(endpoint, f)]) out.reserve(old->text().size());
      set.Write(f, out);
      fresh[Slot(endpoint, f)] =
          std::make_shared<const Body>(std::move(out), set.stats().series);
    }
    stats.series += set.stats().series;
    stats.duplicates_dropped += set.stats().duplicates_dropped;
    stats.utf8_repaired += set.stats().utf8_repaired;
    rendered = true;
  }
  // Compress outside apply_mu_ so a finishing collection is not held up.
  for (size_t i = 0; i < fresh.size(); ++i) {
    if (fresh[i] && gzip[i]) fresh[i]->gzipped();
  }
  if (rendered) monitoring_.Rendered(options_.monotonic_now() - t0, stats);
  std::lock_guard lock(mu_);
  // Deactivate() bumps the epoch before it clears the bodies under mu_:
  // either we see the bump here, or it clears what we publish.
  if (epoch != epoch_.load()) return;
  for (size_t i = 0; i < fresh.size(); ++i) {
    if (fresh[i]) bodies_[i] = std::move(fresh[i]);
  }
  ready_ = true;
}

std::shared_ptr<const Body> Collector::Get(Endpoint e, Format f, bool gzip) {
  static const auto kEmpty = std::make_shared<const Body>(std::string(), 0);
  {
    std::lock_guard lock(mu_);
    wanted_[Slot(e, f)] = true;
    gzip_wanted_[Slot(e, f)] |= gzip;
    if (bodies_[Slot(e, f)]) return bodies_[Slot(e, f)];
    if (!ready_) return kEmpty;
  }
  // First request for this format: render now from the current state
  // (our own locks only; slurmctld's are never taken here).
  std::shared_ptr<const Body> body;
  {
    std::lock_guard lock(apply_mu_);
    MetricSet set(&options_.disabled_families);
    AddEndpointFamilies(set, e, state_, history_,
                        {options_.unix_now(), options_.native_values});
    set.Seal();
    std::string out;
    set.Write(f, out);
    body = std::make_shared<const Body>(std::move(out), set.stats().series);
  }
  std::lock_guard lock(mu_);
  if (!bodies_[Slot(e, f)]) bodies_[Slot(e, f)] = body;
  return bodies_[Slot(e, f)];
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
      state_ = {};
      history_ = NodeHistory(options_.monotonic_now());
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
