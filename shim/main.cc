// SPDX-License-Identifier: GPL-2.0-or-later
// soperator-metrics-shim: loads the plugin without slurmctld (its own
// build of a carrier: the installed objects plus offline_hooks.cc), fills
// the controller's state from Slurm's own JSON dumps and prints or serves
// what the plugin exports. See docs/shim.md.
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "controller.h"
#include "generate.h"
#include "job_churn.h"
#include "hooks.h"
#include "input.h"
#include "plugin_host.h"
#include "scenario.h"
#include "scenario_play.h"
#include "slurmctld_router_driver.h"
#include "vocabulary.h"

namespace shim {
namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  soperator-metrics-shim render --plugin SO [--path /metrics|/monitoring]\n"
    "        [--openmetrics] [--no-collect] [--now UNIX] [--conf FILE] [-v|-q] INPUT...\n"
    "  soperator-metrics-shim serve --plugin SO --listen 127.0.0.1:PORT\n"
    "        [--monitoring-listen 127.0.0.1:PORT] [--now UNIX] [--conf FILE]\n"
    "        [--recollect SECONDS] [--first-collect-delay SECONDS] [-v|-q] INPUT...\n"
    "  soperator-metrics-shim scenario --plugin SO [--openmetrics] [--every-step]\n"
    "        [--gzip-dir DIR]\n"
    "        [--path /metrics|/monitoring] [--conf FILE] [-v|-q] SCENARIO.json\n"
    "        (render and scenario: [--churn-jobs LOG] changes job_list between\n"
    "        the jobs collection's slices and logs it, for tests)\n"
    "  soperator-metrics-shim slurmctld --plugin METRICS_SO --router STANDIN_SO\n"
    "        [--no-collect] [--now UNIX] [--conf FILE] [-v|-q] INPUT... < REQUESTS.jsonl\n"
    "  soperator-metrics-shim generate --nodes N --jobs M [--partitions P]\n"
    "        [--reservations R] [--users U] [--rpc-types T] [--accounts A]\n"
    "        [--user-accounts K] [--qos Q] [--licenses L] [--odd-names N]\n"
    "        [--seed S] [--now UNIX] --out DIR\n"
    "  soperator-metrics-shim version\n"
    "\n"
    "INPUT: Slurm's JSON (scontrol show nodes|jobs|partitions --json, squeue\n"
    "--json, sdiag --json, 22.05's sinfo --json, slurmrestd /nodes /jobs /diag)\n"
    "or 22.05's sdiag text; the kind is told by the content.\n"
    "SO: the shim's build of a carrier, job_submit_soperator_shim.so or\n"
    "metrics_soperator_shim.so (shim/ in the build directory); the installed\n"
    "carriers export only what slurmctld calls.\n"
    "Exit status: 0 ok, 1 plugin or HTTP failure, 2 bad usage or input.\n";

[[noreturn]] void Usage(const std::string& problem) {
  throw InputError(problem + "\n\n" + kUsage);
}

struct Args {
  std::string command;
  std::string plugin;
  std::string path = "/metrics";
  bool openmetrics = false;
  bool every_step = false;
  std::string gzip_dir;  // --gzip-dir DIR (scenario_play.h)
  bool timings = false;
  std::optional<int64_t> now;
  std::string conf;
  std::string listen, monitoring_listen;
  std::string churn_jobs;  // --churn-jobs LOG (job_churn.h)
  std::string router;
  double recollect = 0;
  // serve: the listeners answer this long before the first collection.
  double first_collect_delay = 0;
  // slurmctld: no collection before the first request ({"collect": true});
  // render: none at all (what a path answers before the first collection).
  bool no_collect = false;
  int verbosity = 1;
  std::vector<std::string> inputs;
  GenerateOptions gen;
  bool gen_out_set = false;
};

int64_t ParseInt(const std::string& opt, const std::string& v, int64_t lo, int64_t hi) {
  char* end = nullptr;
  errno = 0;
  const long long x = strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno || x < lo || x > hi)
    Usage(opt + " wants an integer from " + std::to_string(lo) + " to " +
          std::to_string(hi) + ", got \"" + v + "\"");
  return x;
}

Args ParseArgs(int argc, char** argv) {
  Args a;
  if (argc < 2) Usage("no command");
  a.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--plugin") a.plugin = value();
    else if (arg == "--path") a.path = value();
    else if (arg == "--openmetrics") a.openmetrics = true;
    else if (arg == "--every-step") a.every_step = true;
    else if (arg == "--gzip-dir") a.gzip_dir = value();
    else if (arg == "--timings") a.timings = true;
    else if (arg == "--now") a.now = ParseInt(arg, value(), 0, INT64_MAX / 4);
    else if (arg == "--conf") a.conf = value();
    else if (arg == "--churn-jobs") a.churn_jobs = value();
    else if (arg == "--listen") a.listen = value();
    else if (arg == "--router") a.router = value();
    else if (arg == "--first-collect-delay")
      a.first_collect_delay = static_cast<double>(ParseInt(arg, value(), 0, 3600));
    else if (arg == "--no-collect") a.no_collect = true;
    else if (arg == "--monitoring-listen") a.monitoring_listen = value();
    else if (arg == "--recollect") a.recollect = static_cast<double>(ParseInt(arg, value(), 1, 86400));
    else if (arg == "-v") ++a.verbosity;
    else if (arg == "-vv") a.verbosity += 2;
    else if (arg == "-q") a.verbosity = 0;
    else if (arg == "--nodes") a.gen.nodes = ParseInt(arg, value(), 1, 1000000);
    else if (arg == "--jobs") a.gen.jobs = ParseInt(arg, value(), 0, 10000000);
    else if (arg == "--partitions") a.gen.partitions = ParseInt(arg, value(), 1, 10000);
    else if (arg == "--reservations") a.gen.reservations = ParseInt(arg, value(), 0, 10000);
    else if (arg == "--users") a.gen.users = ParseInt(arg, value(), 1, 1000000);
    else if (arg == "--rpc-types") a.gen.rpc_types = ParseInt(arg, value(), 0, 10000);
    else if (arg == "--accounts") a.gen.accounts = ParseInt(arg, value(), 1, 100000);
    else if (arg == "--user-accounts") a.gen.user_accounts = ParseInt(arg, value(), 1, 1000);
    else if (arg == "--qos") a.gen.qos = ParseInt(arg, value(), 0, 10000);
    else if (arg == "--licenses") a.gen.licenses = ParseInt(arg, value(), 0, 10000);
    else if (arg == "--odd-names") a.gen.odd_names = ParseInt(arg, value(), 0, 1000);
    else if (arg == "--seed") a.gen.seed = static_cast<uint64_t>(ParseInt(arg, value(), 0, INT64_MAX));
    else if (arg == "--out") {
      a.gen.out = value();
      a.gen_out_set = true;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg.size() > 1 && arg[0] == '-') {
      Usage("unknown option " + arg);
    } else {
      a.inputs.push_back(arg);
    }
  }
  if (a.now) a.gen.now = *a.now;
  return a;
}

ClusterIn ReadInputs(const Args& a, UserTable& users) {
  if (a.inputs.empty()) Usage("no INPUT files");
  ClusterIn state;
  for (const std::string& f : a.inputs) ReadInputFile(f, state, users);
  if (!state.nodes || state.nodes->empty())
    throw InputError(
        "no nodes in the input: the plugin exports nothing while slurmctld has no "
        "node table; add a node dump (scontrol show nodes --json, 22.05's sinfo "
        "--json, or slurmrestd /nodes)");
  return state;
}

int64_t StartTime(const Args& a, const ClusterIn& state) {
  if (a.now) return *a.now;
  if (const auto t = state.DumpTime()) return *t;
  throw InputError("the input carries no time to replay it at; give --now UNIX");
}

// Reads the inputs into slurmctld's records, the clocks at their time.
void LoadInputs(const Args& a) {
  UserTable users;
  ClusterIn state = ReadInputs(a, users);
  SetupSlurm(state.cluster_name, a.verbosity);
  LearnUsers(users);
  VirtualClock::Set(0, StartTime(a, state));
  LoadClusterState(state);
}

// A loopback listener on a free port other than `taken`.
Endpoint FreeListener(int taken = 0) {
  Endpoint e{"127.0.0.1", FreeLoopbackPort()};
  if (e.port == taken) e.port = FreeLoopbackPort();
  return e;
}

std::string ExtraConf(const Args& a) {
  return a.conf.empty() ? std::string() : ReadWholeFile(a.conf);
}

void RequirePlugin(const Args& a) {
  if (a.plugin.empty())
    Usage(a.command + " needs --plugin PATH (job_submit_soperator_shim.so or metrics_soperator_shim.so)");
}

// "VmRSS" or "VmHWM" of this process in MiB, from /proc/self/status.
double MemoryMiB(const char* key) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) == 0) return std::stod(line.substr(std::strlen(key) + 1)) / 1024;
  }
  return 0;
}

// Phase timings and memory on stderr (--timings), for benchmarks.
class Phases {
 public:
  explicit Phases(bool on) : on_(on), last_(std::chrono::steady_clock::now()) {}
  void Mark(const std::string& phase) {
    const auto now = std::chrono::steady_clock::now();
    if (on_) {
      char buf[160];
      snprintf(buf, sizeof buf, "%.3f s, RSS %.0f MiB, peak %.0f MiB",
               std::chrono::duration<double>(now - last_).count(), MemoryMiB("VmRSS:"),
               MemoryMiB("VmHWM:"));
      std::cerr << "soperator-metrics-shim: timing: " << phase << ": " << buf << "\n";
    }
    last_ = now;
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point last_;
};

// Prints a body; non-200 answers are failures.
void Emit(const HttpResult& r, const std::string& path) {
  if (r.status != 200) {
    std::cerr << "soperator-metrics-shim: " << path << " answered HTTP " << r.status
              << ": " << r.body << "\n";
    throw RuntimeError(path + " answered HTTP " + std::to_string(r.status));
  }
  std::cout.write(r.body.data(), static_cast<std::streamsize>(r.body.size()));
  std::cout.flush();
}

// A scenario's fetch of a health path (/readyz, /livez, /health) prints its
// answer whatever the status, after a "# HTTP <status>" line when it is not
// 200: what a probe would see is the point of fetching it.
void EmitScenario(const HttpResult& r, const std::string& path) {
  if (r.status != 200 && (path == "/readyz" || path == "/livez" || path == "/health")) {
    std::cout << "# HTTP " << r.status << "\n";
    std::cout.write(r.body.data(), static_cast<std::streamsize>(r.body.size()));
    std::cout.flush();
    return;
  }
  Emit(r, path);
}

int Render(const Args& a) {
  RequirePlugin(a);
  Phases phases(a.timings);
  UserTable users;
  ClusterIn state = ReadInputs(a, users);
  phases.Mark("read inputs");
  SetupSlurm(state.cluster_name, a.verbosity);
  LearnUsers(users);
  VirtualClock::Set(0, StartTime(a, state));
  LoadClusterState(state);
  state = ClusterIn();  // the controller's records are all that is needed now
  phases.Mark("fill controller records");
  const Endpoint metrics = FreeListener();
  const Endpoint monitoring = FreeListener(metrics.port);
  PluginHost host(a.plugin, metrics, monitoring, ExtraConf(a));
  host.Init();
  phases.Mark("load plugin and init()");
  if (!a.no_collect) host.Collect();
  phases.Mark("collect (soperator_metrics_collect_now)");
  const HttpResult r = host.Fetch(a.path, a.openmetrics);
  phases.Mark("HTTP GET " + a.path);
  Emit(r, a.path);
  phases.Mark("write stdout");
  host.Fini();
  ClearClusterState();
  phases.Mark("fini() and free");
  return 0;
}

volatile sig_atomic_t g_stop = 0;

int Serve(const Args& a) {
  RequirePlugin(a);
  if (a.listen.empty()) Usage("serve needs --listen 127.0.0.1:PORT");
  const Endpoint metrics = ParseLoopback(a.listen, "--listen");
  Endpoint monitoring;
  if (!a.monitoring_listen.empty()) {
    monitoring = ParseLoopback(a.monitoring_listen, "--monitoring-listen");
  } else {
    monitoring = FreeListener(metrics.port);
  }
  if (monitoring.str() == metrics.str())
    Usage("--listen and --monitoring-listen must differ");
  LoadInputs(a);

  // Signals are taken synchronously here; every other thread (the
  // plugin's included) inherits the blocked mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  PluginHost host(a.plugin, metrics, monitoring, ExtraConf(a));
  host.Init();
  // A slow first collection, as on a large cluster: the listeners already
  // answer (docs/scraping.md, "Before the first collection").
  if (a.first_collect_delay > 0) {
    timespec delay{static_cast<time_t>(a.first_collect_delay), 0};
    while (nanosleep(&delay, &delay) != 0 && errno == EINTR) {
    }
  }
  host.Collect();
  // From here the virtual clocks run with the real one: scrapes see job
  // durations grow and --recollect credits GPU-seconds.
  VirtualClock::Follow();
  std::cerr << "soperator-metrics-shim: serving http://" << metrics.str()
            << "/metrics (monitoring: http://" << monitoring.str()
            << "/metrics); SIGINT or SIGTERM stops\n";
  while (true) {
    timespec ts{};
    ts.tv_sec = a.recollect > 0 ? static_cast<time_t>(a.recollect) : 3600;
    const int sig = sigtimedwait(&set, nullptr, &ts);
    if (sig == SIGINT || sig == SIGTERM) break;
    if (sig < 0 && errno == EAGAIN && a.recollect > 0) host.Collect();
  }
  std::cerr << "soperator-metrics-shim: stopping\n";
  host.Fini();
  ClearClusterState();
  return 0;
}

int RunScenario(const Args& a) {
  RequirePlugin(a);
  if (a.inputs.size() != 1) Usage("scenario takes exactly one SCENARIO.json");
  UserTable users;
  const Scenario sc = LoadScenario(a.inputs[0], users);
  SetupSlurm(sc.steps.front().state.cluster_name, a.verbosity);
  LearnUsers(users);
  VirtualClock::Set(0, sc.start_unix);
  const Endpoint metrics = FreeListener();
  const Endpoint monitoring = FreeListener(metrics.port);
  PluginHost host(a.plugin, metrics, monitoring, ExtraConf(a));
  host.Init();
  PlayScenario(sc, host, {a.path, a.openmetrics, a.every_step, a.gzip_dir, EmitScenario});
  host.Fini();
  ClearClusterState();
  return 0;
}

// The metrics carrier's routes on slurmctld's port, through the stand-in
// router (the REQUESTS format is in slurmctld_router_driver.h).
int RunSlurmctld(const Args& a) {
  RequirePlugin(a);
  if (a.router.empty()) Usage("slurmctld needs --router STANDIN_SO");
  std::ostringstream requests;
  requests << std::cin.rdbuf();
  const std::string all = requests.str();
  LoadSlurmctldStandin(a.router, all.substr(0, all.find('\n')));
  LoadInputs(a);
  const Endpoint metrics = FreeListener();
  const Endpoint monitoring = FreeListener(metrics.port);
  PluginHost host(a.plugin, metrics, monitoring, ExtraConf(a));
  host.Init();
  if (!a.no_collect) host.Collect();
  std::istringstream in(all);
  ServeSlurmctldRequests(in, std::cout, host);
  host.Fini();
  ClearClusterState();
  return 0;
}

int Dispatch(const Args& a);

int Main(int argc, char** argv) {
  const Args a = ParseArgs(argc, argv);
  struct Flush {
    ~Flush() { FlushWarnings(); }
  } flush;
  return Dispatch(a);
}

int Dispatch(const Args& a) {
  if (!a.churn_jobs.empty()) EnableJobChurn(a.churn_jobs);
  if (a.command == "render") return Render(a);
  if (a.command == "serve") return Serve(a);
  if (a.command == "scenario") return RunScenario(a);
  if (a.command == "slurmctld") return RunSlurmctld(a);
  if (a.command == "generate") {
    if (!a.gen_out_set) Usage("generate needs --out DIR");
    if (a.gen.nodes <= 0) Usage("generate needs --nodes N");
    GenerateOptions options = a.gen;
    options.known_rpcs = KnownRpcs();
    Generate(options);
    return 0;
  }
  if (a.command == "version" || a.command == "--version") {
    std::cout << "soperator-metrics-shim for Slurm " << SlurmVersionString() << "\n";
    return 0;
  }
  if (a.command == "-h" || a.command == "--help" || a.command == "help") {
    std::cout << kUsage;
    return 0;
  }
  Usage("unknown command \"" + a.command + "\"");
}

}  // namespace
}  // namespace shim

int main(int argc, char** argv) {
  try {
    return shim::Main(argc, argv);
  } catch (const shim::InputError& e) {
    std::cerr << "soperator-metrics-shim: error: " << e.what() << "\n";
    return 2;
  } catch (const shim::RuntimeError& e) {
    std::cerr << "soperator-metrics-shim: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "soperator-metrics-shim: error: " << e.what() << "\n";
    return 1;
  }
}
