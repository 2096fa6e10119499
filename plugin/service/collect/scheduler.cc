// SPDX-License-Identifier: GPL-2.0-or-later
#include "collect/scheduler.h"

#include <algorithm>
#include <limits>

#include "base/log.h"
#include "thread_util.h"

namespace sm {
namespace {

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

}  // namespace

Scheduler::Scheduler(std::mutex& mu, Source& source, StateStore& store,
                     const CollectorOptions& options, SelfMonitoring& monitoring,
                     Hooks hooks)
    : mu_(mu),
      source_(source),
      store_(store),
      options_(options),
      monitoring_(monitoring),
      hooks_(std::move(hooks)) {
  last_success_.fill(-std::numeric_limits<double>::infinity());
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

void Scheduler::Start(bool ticker) {
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

void Scheduler::StopLocked() {
  stopping_ = true;
  queue_.clear();
}

void Scheduler::JoinRenderThread() {
  if (render_thread_.joinable()) render_thread_.join();
}

int Scheduler::WaitIdle(std::chrono::milliseconds grace) {
  // With stopping_ set no idle thread becomes busy again (WorkerLoop and
  // TickerLoop look at it under mu_ before they start work), so with
  // busy_ at 0 every join returns once each thread has seen it.
  std::unique_lock lock(mu_);
  const auto idle = [this] { return busy_ == 0; };
  if (grace == std::chrono::milliseconds::max()) idle_cv_.wait(lock, idle);
  else if (grace.count() > 0) idle_cv_.wait_for(lock, grace, idle);
  return busy_;
}

void Scheduler::JoinAll() {
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

// One of them may be queued on a lock the caller holds: joining it could
// wait for good. They all end on their own (RunTask drops what it
// collected once stopping_ is set); what they read stays alive, leaked by
// the collector's owner.
void Scheduler::DetachAll() {
  for (std::thread& t : threads_) t.detach();
  threads_.clear();
}

void Scheduler::WaitEnded() {
  std::unique_lock lock(mu_);
  idle_cv_.wait(lock, [this] { return alive_ == 0; });
}

double Scheduler::OldestSuccessLocked(double now, std::string_view& which) const {
  double oldest = now;
  for (int i = 0; i < kSubCollectorCount; ++i) {
    if (skipped_[i] || last_success_[i] >= oldest) continue;
    oldest = last_success_[i];
    which = kSubCollectors[i].name;
  }
  return oldest;
}

void Scheduler::ForgetSuccessesLocked() {
  last_success_.fill(-std::numeric_limits<double>::infinity());
}

void Scheduler::TickerLoop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    ++busy_;  // StartTick asks slurmctld (Active(), HiddenFromUsers())
    lock.unlock();
    LogFailure("collector tick failed", [this] { StartTick(false); });
    lock.lock();
    --busy_;
    if (stopping_) idle_cv_.notify_all();
    // Until slurmctld has loaded its state (or while it is a standby
    // backup) look again every second rather than every interval.
    const auto wait = hooks_.ready_locked()
                          ? options_.interval
                          : std::min<std::chrono::milliseconds>(options_.interval,
                                                                std::chrono::seconds(1));
    cv_.wait_for(lock, wait, [this] { return stopping_; });
  }
}

void Scheduler::WorkerLoop(int sub) {
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

void Scheduler::RenderLoop() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || render_pending_; });
    if (stopping_) return;
    render_pending_ = false;
    const uint64_t epoch = render_epoch_;
    lock.unlock();
    LogFailure("render failed", [this, epoch] { hooks_.render(epoch); });
    lock.lock();
  }
}

void Scheduler::StartTick(bool synchronous) {
  if (!hooks_.begin_tick()) return;
  auto tick = std::make_shared<Tick>();
  tick->epoch = store_.epoch();
  tick->start = options_.monotonic_now();
  std::vector<Task> tasks;
  {
    std::lock_guard lock(mu_);
    tasks = QueueTasksLocked(tick, synchronous);
  }
  if (synchronous) {
    for (const Task& t : tasks) RunTask(t);
  } else {
    cv_.notify_all();
  }
}

std::vector<Scheduler::Task> Scheduler::QueueTasksLocked(const std::shared_ptr<Tick>& tick,
                                                         bool synchronous) {
  std::vector<Task> tasks;
  if (stopping_ && !synchronous) return tasks;
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
    tasks.clear();
  }
  return tasks;
}

void Scheduler::RunTask(const Task& task) {
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

void Scheduler::FinishTask(const Task& task, double t0, int64_t unix_t0,
                           const LockTiming& timing, const std::string& error,
                           const Applier& result) {
  const std::string_view name = kSubCollectors[task.sub].name;
  if (timing.used)
    monitoring_.LockUsed(name, timing.wait_seconds, timing.hold_seconds,
                         timing.list_wait_seconds);
  const bool failed = !result;
  bool applied = false;
  if (!failed &&
      !(applied = store_.Apply(task.sub, task.sequence, task.tick->epoch, result)))
    LogDebug("collector " + std::string(name) + ": stale result dropped");
  // Soperator's duration covers the fetch and the state update.
  const Finished finished{t0, unix_t0, options_.monotonic_now() - t0, failed, applied};
  TickEnd end;
  std::string log_line;
  {
    std::lock_guard lock(mu_);
    log_line = CountFinishedLocked(task, finished, error, end);
  }
  if (!log_line.empty()) {
    if (failed) LogError(log_line);
    else LogInfo(log_line);
  }
  if (end.done) {
    monitoring_.CollectionFinished(end.seconds, end.failed);
    RequestRender(task);
  }
}

std::string Scheduler::CountFinishedLocked(const Task& task, const Finished& f,
                                           const std::string& error, TickEnd& end) {
  const std::string_view name = kSubCollectors[task.sub].name;
  SubCollector& s = subs_[task.sub];
  --s.inflight;
  std::string log_line =
      f.failed ? NoteFailureLocked(task.sub, error) : NoteSuccessLocked(task.sub);
  monitoring_.CollectorFinished(name, f.seconds, f.failed, s.inflight);
  // Under mu_, like Deactivate()'s reset: a result dropped as stale never
  // counts, and one applied before a Deactivate() is forgotten by it.
  if (f.applied && task.tick->epoch == store_.epoch()) {
    last_success_[task.sub] = f.t0;
    monitoring_.CollectorSucceeded(name, static_cast<double>(f.unix_t0));
  }
  Tick& tick = *task.tick;
  ++tick.finished;
  tick.failed |= f.failed;
  if (tick.finished == tick.started) {
    end.done = true;
    end.failed = tick.failed;
    end.seconds = options_.monotonic_now() - tick.start;
  }
  return log_line;
}

void Scheduler::RequestRender(const Task& task) {
  if (task.synchronous) {
    hooks_.render(task.tick->epoch);
    return;
  }
  {
    std::lock_guard lock(mu_);
    render_pending_ = true;
    render_epoch_ = task.tick->epoch;
  }
  cv_.notify_all();
}

// A sub-collector failing every interval (slurmdbd gone, a release
// difference) would write the same line every CollectionInterval: the
// first failure of a run is logged, then one line with the count at most
// every kFailureLogSeconds, and the recovery (tests/unit/collector_test.cc,
// FailuresAreLoggedNowAndThen). The counter families count every one.
std::string Scheduler::NoteFailureLocked(int sub, const std::string& error) {
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

std::string Scheduler::NoteSuccessLocked(int sub) {
  SubCollector& s = subs_[sub];
  if (s.failures == 0) return "";
  const std::string line = "collector " + std::string(kSubCollectors[sub].name) +
                           " recovered after " + std::to_string(s.failures) +
                           " failed collection(s)";
  s.failures = 0;
  s.failures_logged = 0;
  return line;
}

}  // namespace sm
