// SPDX-License-Identifier: GPL-2.0-or-later
#include "runtime.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>

#include "adapter.h"
#include "adapter_util.h"
#include "config/config_file.h"
#include "base/log.h"
#include "slurm_api.h"

namespace sm::slurm {
namespace {

constexpr const char* kConfName = "soperator_metrics.conf";

// Which build this is: the start line logs it.
constexpr char kBuild[] = "version " SM_VERSION ", built for Slurm " SLURM_VERSION_STRING;
// The same, kept whole in the .so for docs/examples/soperator-install-plugin.sh
// to read before installing: it refuses a plugin built from another Slurm
// tree than the slurmctld it goes to. Never read here, so the compiler
// cannot split it up as it may a literal it copies.
[[gnu::used]] constexpr char kBuildMarker[] =
    "soperator-metrics-build:" SM_VERSION ":" SLURM_VERSION_STRING ":end";

// One start of the exporter: the source it collects from and the exporter,
// which holds the source by reference, live and die together. Route
// handlers that are serving (CurrentRuntime()) share it.
struct Generation {
  Generation(Config config, Carrier carrier, const OfflineControl& offline)
      : exporter(source, std::move(config), carrier, offline) {}
  ControllerSource source;
  Exporter exporter;
};

// Leaked on purpose: with no static destructor, process exit never joins
// threads that may be waiting on slurmctld's locks (26.05 exits without
// calling fini()).
struct State {
  std::shared_ptr<Generation> running;
};
State* g_state = nullptr;
std::mutex g_mu;

// The process that started us. slurmctld forks children that call exit()
// (a reconfigure under systemd, triggers whose program cannot run,
// fatal() in a child): every atexit handler then runs in a process that
// has none of our threads. Ours must do nothing there
// (docs/architecture.md, "Stopping"; tests/integration/lifecycle.py).
pid_t g_owner_pid = 0;
std::atomic<bool> g_in_forked_child{false};

bool InProcessThatStartedUs() {
  return !g_in_forked_child.load() && getpid() == g_owner_pid;
}


void SlurmSink(LogLevel level, const char* message) {
  switch (level) {
    case LogLevel::kDebug: debug("soperator-metrics: %s", message); break;
    case LogLevel::kInfo: info("soperator-metrics: %s", message); break;
    case LogLevel::kWarn:
#ifdef SM_SLURM_HAS_WARNING
      warning("soperator-metrics: %s", message);
#else
      // No warning level before it: the line warning() writes, at info.
      info("warning: soperator-metrics: %s", message);
#endif
      break;
    case LogLevel::kError: error("soperator-metrics: %s", message); break;
  }
}

// The configuration, or nullopt when it has an error: then nothing starts,
// neither listener nor collector. A listener on an address the admin did
// not ask for, or without the access rules they wrote, is worse than none
// (fail closed); slurmctld itself always starts.
std::optional<Config> LoadRuntimeConfig(Carrier carrier) {
  char* path_c = get_extra_conf_path(const_cast<char*>(kConfName));
  const std::string path = path_c ? path_c : kConfName;
  xfree(path_c);
  std::vector<ConfigMessage> messages;
  const ConfigFile file = ReadConfigFile(path);
  std::optional<std::string> text;
  if (file.state == ConfigFile::State::kRead) text = file.text;
  if (file.state == ConfigFile::State::kRefused)
    messages.push_back({true, path + ": " + file.problem});
  Config config = LoadConfig(text, path, [](const char* k) { return std::getenv(k); },
                             messages);
  if (config.cluster_name.empty() && slurm_conf.cluster_name)
    config.cluster_name = slurm_conf.cluster_name;
  const size_t errors = std::count_if(messages.begin(), messages.end(),
                                      [](const ConfigMessage& m) { return m.error; });
  // Errors pass any threshold; keep the configured one only when valid.
  SetLogSink(SlurmSink, errors ? LogLevel::kInfo : config.log_level);
  LogNotice(std::string(kBuild) + ", loaded as " + CarrierName(carrier));
  for (const ConfigMessage& m : messages) Log(m.error ? LogLevel::kError : LogLevel::kWarn, m.text);
  if (errors) {
    LogError("not started: " + std::to_string(errors) + " error" +
             (errors > 1 ? "s" : "") + " in the configuration (above); no "
             "listener and no collector run until they are fixed in " + path +
             " or the SLURM_EXPORTER_* environment and slurmctld is restarted");
    return std::nullopt;
  }
  LogNotice(text ? "configuration read from " + path
                 : "no " + path + "; using defaults and SLURM_EXPORTER_* variables");
  if (config.job_source == JobSource::kAccounting)
    LogNotice("JobSource=accounting: finished jobs are served for " +
              std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                 config.accounting_jobs_lookback)
                                 .count()) +
              " s after they end (AccountingJobsLookback), at most " +
              std::to_string(config.accounting_jobs_max) + " jobs and " +
              std::to_string(config.accounting_jobs_max_bytes) +
              " bytes; kept in memory, the window starts again with slurmctld");
  return config;
}

// Slurm 22.05 to 26.05 exit() without calling our fini() (job_submit and
// metrics plugins are unloaded only under MEMORY_LEAK_DEBUG). exit() then
// runs static destructors, ours and libstdc++'s, while our listener threads
// still answer scrapes: they must stop first. This runs before the
// destructors of every static made before StartRuntime() registered it.
// The collection workers are not joined: one may be queued on a slurmctld
// lock that the exiting thread holds; they touch only leaked objects, and
// the adapter stops at its next lock once shutdown_time is set. Also runs
// when the plugin is dlclose()d after fini(), and then finds nothing.
// In a forked child it returns at once: the threads it would join are not
// there, and their mutexes and condition variables may have been held
// when fork() copied them.
void StopServingAtExit() {
  if (!InProcessThatStartedUs()) return;
  // try_lock: exit() may come from inside StartRuntime (a fatal() in a
  // Slurm call), on the thread that holds g_mu.
  std::unique_lock lock(g_mu, std::try_to_lock);
  if (!lock.owns_lock() || !g_state || !g_state->running) return;
  try {
    g_state->running->exporter.StopServing();
  } catch (...) {
  }
}

void MarkForkedChild() { g_in_forked_child.store(true); }

// Stops `g` and lets go of it. When a collection thread it started may
// still be waiting for slurmctld (its locks, or an RPC to it), or stopping
// failed, the generation is kept for good instead: those threads end on
// their own, after what they wait for, and what they read stays alive,
// and so does their code (the carriers are linked with -z nodelete,
// plugin/slurm/meson.build; 22.05 and 23.02 dlclose() the plugin right
// after fini()). Otherwise the last holder deletes it: here, or a route
// handler of slurmctld's still inside (CloseSlurmctldRoutes() waits for
// them only so long), which then joins nothing. Returns the threads left
// running, -1 when stopping failed.
int StopOrKeep(std::shared_ptr<Generation>& g) noexcept {
  int left = -1;
  try {
    left = g->exporter.Stop();
  } catch (...) {
  }
  if (left != 0) new std::shared_ptr<Generation>(g);
  g.reset();
  return left;
}

}  // namespace

Exporter* StartRuntime(Carrier carrier) {
  std::lock_guard lock(g_mu);
  std::shared_ptr<Generation> running;
  try {
    if (!g_state) {
      g_state = new State();
      g_owner_pid = getpid();
      // A child handler only sets a flag: nothing else is safe there.
      pthread_atfork(nullptr, nullptr, MarkForkedChild);
      std::atexit(StopServingAtExit);
    }
    if (g_state->running) return &g_state->running->exporter;
    std::optional<Config> config = LoadRuntimeConfig(carrier);
    if (!config) return nullptr;
    const OfflineControl offline = OfflineHooks ? OfflineHooks() : OfflineControl{};
    running = std::make_shared<Generation>(std::move(*config), carrier, offline);
    running->source.SetClock(offline.unix_now);
    running->exporter.monitoring().SetBuildInfo(
        {SM_VERSION, SLURM_VERSION_STRING, CarrierName(carrier)});
    running->exporter.Start();
    g_state->running = std::move(running);
    return &g_state->running->exporter;
  } catch (const std::exception& e) {
    error("soperator-metrics: not started: %s", e.what());
  } catch (...) {
    error("soperator-metrics: not started: unknown error");
  }
  // Started threads may already wait for the locks init()'s caller holds.
  if (running) StopOrKeep(running);
  return nullptr;
}

// Never waits for a thread that may be waiting for slurmctld's or
// assoc_mgr's locks: 22.05 and 23.02 call fini() with every slurmctld
// write lock held when a reconfigure drops the plugin
// (docs/architecture.md, "Stopping").
void StopRuntime() {
  std::lock_guard lock(g_mu);
  if (!g_state || !g_state->running) return;
  std::shared_ptr<Generation> stopped = std::move(g_state->running);
  g_state->running = nullptr;
  const int left = StopOrKeep(stopped);
  if (left > 0)
    LogInfo("stopped; " + std::to_string(left) +
            " collection thread(s) were waiting for slurmctld (its locks, "
            "or an RPC to it) and end on their own when that returns");
  else if (left < 0)
    error("soperator-metrics: error while stopping");
  SetLogSink(nullptr, LogLevel::kInfo);
}

std::shared_ptr<Exporter> CurrentRuntime() {
  std::lock_guard lock(g_mu);
  if (!g_state || !g_state->running) return nullptr;
  return std::shared_ptr<Exporter>(g_state->running, &g_state->running->exporter);
}

}  // namespace sm::slurm
