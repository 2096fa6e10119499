// SPDX-License-Identifier: GPL-2.0-or-later
// The synthetic cluster is built to be self-consistent the way a real
// controller's dumps are: busy nodes are busy because running jobs hold
// their CPUs (job_resources add up to each node's alloc_cpus and
// alloc_memory), MIXED nodes are partly allocated, drained and down nodes
// carry reasons, pending jobs have no nodes, finished jobs ended within
// MinJobAge. Strings have production-like lengths and include quotes,
// backslashes and non-ASCII text. It is built as the shim's own model
// (model.h) and written by its one writer (slurm_json.h). The order of the
// random draws is the cluster a seed stands for: keep it when changing a
// step.
#include "generate.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <random>

#include "generate_parts.h"
#include "input.h"
#include "slurm_json.h"

namespace shim {
namespace {

// What a node is meant to be; its state words follow from it and from what
// the jobs placed on it took.
enum class Kind {
  kIdle, kMixed, kAllocated, kDrained, kDraining, kDown, kNotResponding,
  kReserved, kPoweredDown, kMaint, kFail, kCompleting, kPlanned
};

// The numbers a node's record is computed from while jobs are placed.
struct NodePlan {
  Kind kind = Kind::kIdle;
  bool gpu = false;
  int number = 0;  // the NNNNN of its name
  int cpus = 0, cores = 0, sockets = 0, threads = 0;
  int64_t mem_mb = 0, spec_mb = 0;
  int gpus = 0;
  int target_cpus = 0;  // what its jobs should take
  int64_t alloc_cpus = 0, alloc_mem = 0;
  int alloc_gpus = 0;
};

// Everything a generation step reads and adds to.
struct Gen {
  explicit Gen(const GenerateOptions& o) : opt(o), rng(o.seed), now(o.now) {}
  const GenerateOptions& opt;
  Rng rng;
  int64_t now;
  std::vector<std::string> partitions;
  std::vector<User> users;
  std::vector<NodeIn> nodes;
  std::vector<NodePlan> plans;  // one per node
  std::vector<JobIn> jobs;
  std::vector<std::string> reservations;
  int64_t next_id = 100000;
};

// The nodes `on` in Slurm's ranged form.
std::string HostsOf(const Gen& g, const std::vector<size_t>& on) {
  std::vector<std::string> names;
  names.reserve(on.size());
  for (size_t i : on) names.push_back(g.nodes[i].name);
  return RangedHosts(names);
}

std::string Tres(int64_t cpus, int64_t mem_mb, int64_t nodes, int gpus) {
  std::string s = "cpu=" + std::to_string(cpus) + ",mem=" + std::to_string(mem_mb) + "M";
  if (nodes > 0) s += ",node=" + std::to_string(nodes);
  s += ",billing=" + std::to_string(cpus);
  if (gpus > 0) s += ",gres/gpu=" + std::to_string(gpus);
  return s;
}

const std::vector<std::string>& Reasons() {
  static const std::vector<std::string> r = {
      "Kill task failed",
      "Not responding",
      "NHC: check_hw_physmem: Actual RAM size (1546000 kB) less than minimum allowed (1548000 kB)",
      "gpu ECC errors: uncorrectable (DBE) count 3 on GPU 5, replace requested",
      "maintenance \"firmware 2.4.1\" rollout, ticket OPS-18342",
      "batch job complete failure",
      "InfiniBand port mlx5_3 down \\ link flapping since 03:12",
      "health check: /mnt/data not mounted",
      "Prolog error",
      "drained by soperator: node is being replaced (k8s node pool upgrade)",
      "NVLink error on GPU 2: fabric manager reported Xid 74",
      "nvidia-smi hung > 60s",
  };
  return r;
}

const std::vector<std::string>& JobNames() {
  static const std::vector<std::string> n = {
      "train-llama3-70b-sft", "eval_mmlu_5shot", "bash", "interactive",
      "sweep \"lr=3e-4,bs=1024\"", "preprocess-tokenize-shard", "nccl-tests-all_reduce",
      "jupyter", "ray-head", "data\\backfill", "finetune-ρ-experiment",
      "inference-benchmark-h100-fp8", "checkpoint-convert", "wrap",
  };
  return n;
}

const std::vector<std::string>& PendingReasons() {
  static const std::vector<std::string> r = {
      "Priority", "Resources", "Dependency", "QOSMaxJobsPerUserLimit",
      "ReqNodeNotAvail", "BeginTime", "AssocGrpGRES", "PartitionTimeLimit"};
  return r;
}

std::vector<std::string> PartitionNames(int64_t count) {
  static const char* const kNames[] = {"main", "gpu", "cpu", "debug", "long", "preempt"};
  std::vector<std::string> out;
  for (int64_t i = 0; i < count; ++i)
    out.push_back(i < 6 ? std::string(kNames[i]) : "part" + std::to_string(i));
  return out;
}

// Hardware by type: 8-GPU H100 nodes, and CPU nodes of three sizes.
void Hardware(Rng& rng, NodePlan& p) {
  if (p.gpu) {
    p.cpus = 128;
    p.sockets = 2;
    p.cores = 32;
    p.threads = 2;
    p.mem_mb = 1546000;
    p.spec_mb = 16384;
    p.gpus = 8;
    return;
  }
  static const int kCpus[] = {64, 96, 192};
  p.cpus = kCpus[rng.Range(0, 2)];
  p.sockets = 2;
  p.threads = 2;
  p.cores = p.cpus / 4;
  p.mem_mb = p.cpus * 4000;
  p.spec_mb = rng.Chance(0.5) ? 2048 : 0;
  p.gpus = 0;
}

Kind DrawKind(Rng& rng) {
  const double r = rng.Unit();
  return r < 0.28 ? Kind::kIdle : r < 0.52 ? Kind::kMixed : r < 0.75 ? Kind::kAllocated
       : r < 0.80 ? Kind::kDrained : r < 0.83 ? Kind::kDraining : r < 0.87 ? Kind::kDown
       : r < 0.89 ? Kind::kNotResponding : r < 0.91 ? Kind::kPoweredDown
       : r < 0.93 ? Kind::kMaint : r < 0.94 ? Kind::kFail : r < 0.96 ? Kind::kCompleting
       : r < 0.97 ? Kind::kPlanned : Kind::kIdle;
}

// Every node in its first partition, GPU or CPU nodes in theirs, some in
// one more.
std::vector<std::string> NodePartitions(Gen& g, bool gpu) {
  const std::vector<std::string>& parts = g.partitions;
  std::vector<std::string> out{parts[0]};
  if (parts.size() > 1) out.push_back(gpu ? parts[1] : parts[std::min<size_t>(2, parts.size() - 1)]);
  if (parts.size() > 3 && g.rng.Chance(0.3)) out.push_back(parts[3 + static_cast<size_t>(g.rng.Range(0, static_cast<int64_t>(parts.size()) - 4))]);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void MakeNode(Gen& g, int64_t i) {
  NodePlan p;
  p.gpu = i % 3 != 2;
  p.number = static_cast<int>(i + 1);
  NodeIn n;
  char b[32];
  snprintf(b, sizeof b, "%s-%05d", p.gpu ? "gpu-h100" : "cpu-epyc", p.number);
  n.name = b;
  n.hostname = n.name;
  Hardware(g.rng, p);
  p.kind = DrawKind(g.rng);
  n.partitions = NodePartitions(g, p.gpu);
  snprintf(b, sizeof b, "10.%d.%d.%d", static_cast<int>(i / 65536 % 256),
           static_cast<int>(i / 256 % 256), static_cast<int>(i % 256));
  n.address = b;
  n.instance_id = "computeinstance-e00" + g.rng.Alnum(17);
  if (g.rng.Chance(0.2))
    n.comment = "{\"rack\": \"R" + std::to_string(g.rng.Range(1, 40)) +
                "\", \"note\": \"replaced PSU 2026-0" + std::to_string(g.rng.Range(1, 9)) + "\"}";
  const bool needs_reason = p.kind == Kind::kDrained || p.kind == Kind::kDraining ||
                            p.kind == Kind::kDown || p.kind == Kind::kFail ||
                            p.kind == Kind::kMaint;
  if (needs_reason) {
    n.reason = g.rng.Pick(Reasons());
    n.reason_time = g.now - g.rng.Range(60, 14 * 86400);
  }
  switch (p.kind) {
    case Kind::kMixed: p.target_cpus = static_cast<int>(p.cpus * g.rng.Range(1, 7) / 8); break;
    case Kind::kAllocated:
    case Kind::kCompleting: p.target_cpus = p.cpus; break;
    case Kind::kDraining: p.target_cpus = g.rng.Chance(0.5) ? p.cpus : p.cpus / 2; break;
    default: p.target_cpus = 0;
  }
  g.nodes.push_back(std::move(n));
  g.plans.push_back(p);
}

// Reservations on idle nodes.
void Reserve(Gen& g) {
  std::vector<std::string> reservations;
  for (int64_t r = 0; r < g.opt.reservations; ++r) {
    if (r == 0)
      reservations.push_back("maint-2026-12-01");
    else if (r == 1)  // longer than Soperator's 50 code points
      reservations.push_back("réservation-équipe-recherche-modèles-de-langage-très-grands-2027");
    else
      reservations.push_back("project-" + g.rng.Alnum(8) + "-" + std::to_string(r));
  }
  g.reservations = reservations;
  if (reservations.empty()) return;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.plans[i].kind == Kind::kIdle && g.rng.Chance(0.15)) {
      g.plans[i].kind = Kind::kReserved;
      g.nodes[i].reservation = reservations[i % reservations.size()];
    }
  }
}

// A job of `u` as submitted; the caller decides what became of it.
JobIn NewJob(Gen& g, const User& u) {
  Rng& rng = g.rng;
  JobIn j;
  j.job_id = g.next_id++;
  j.user_id = u.uid;
  j.user_name = u.resolvable ? u.name : "";
  j.mail_user = *j.user_name;
  if (rng.Chance(0.1)) j.mail_user = u.name + "@example.org";
  j.account = JobAccount(u.uid, g.opt.accounts);
  j.name = rng.Pick(JobNames());
  j.batch = j.name != "interactive" && j.name != "bash";
  j.work_dir = "/home/" + u.name + "/work/" + rng.Alnum(6);
  j.std_out = rng.Chance(0.7) ? "slurm-%j.out" : "/mnt/data/" + u.name + "/logs/%x-%j.out";
  j.std_err = rng.Chance(0.8) ? "" : "/mnt/data/" + u.name + "/logs/%x-%j.err";
  // Job comments were drawn here; nothing reads them, but the draws stay
  // so that a seed keeps making the cluster it made (docs/performance.md).
  if (rng.Chance(0.05)) rng.Range(1000, 9999);
  const int64_t limit = rng.Pick(std::vector<int64_t>{60, 240, 1440, 4320, -2});
  j.time_limit = limit > 0 ? Num::Of(limit) : Num{Num::kInfinite, 0};
  j.submit_time = Num::Of(g.now - rng.Range(30, 3 * 86400));
  j.priority = Num::Of(rng.Range(1000, 100000));
  j.cpus = j.node_count = Num::Of(1);
  j.memory_per_node = j.array_job_id = j.start_time = j.end_time = Num::Of(0);
  j.memory_per_cpu = j.array_task_id = {Num::kUnset, 0};
  return j;
}

const User& AnyUser(Gen& g) {
  return g.users[static_cast<size_t>(g.rng.Range(0, g.opt.users - 1))];
}

// The end Slurm shows for a job started at `start`: its time limit later.
int64_t EndOf(const JobIn& j, int64_t start) {
  return j.time_limit.has() ? start + j.time_limit.value * 60 : start + 365LL * 86400;
}

// Places `j` on the nodes `on`, up to `cpus_each_max` CPUs on each, and
// charges them.
void Allocate(Gen& g, JobIn& j, const std::vector<size_t>& on, int cpus_each_max) {
  int64_t total_cpus = 0, total_mem = 0;
  int total_gpus = 0;
  std::vector<AllocIn> alloc;
  for (size_t ni : on) {
    NodePlan& p = g.plans[ni];
    const int left = p.target_cpus - static_cast<int>(p.alloc_cpus);
    const int c = std::max(1, std::min(left, cpus_each_max));
    const int64_t m = static_cast<int64_t>(c) * ((p.mem_mb - p.spec_mb) / p.cpus);
    const int gp = p.gpus > 0 ? std::max(0, std::min(p.gpus - p.alloc_gpus, (c * p.gpus + p.cpus - 1) / p.cpus)) : 0;
    p.alloc_cpus += c;
    p.alloc_mem += m;
    p.alloc_gpus += gp;
    alloc.push_back({g.nodes[ni].name, c, m});
    total_cpus += c;
    total_mem += m;
    total_gpus += gp;
  }
  const auto count = static_cast<int64_t>(on.size());
  j.nodes = HostsOf(g, on);
  j.node_count = Num::Of(count);
  j.cpus = Num::Of(total_cpus);
  j.memory_per_node = Num::Of(on.empty() ? 0 : total_mem / count);
  j.tres_alloc = Tres(total_cpus, total_mem, count, total_gpus);
  j.tres_req = j.tres_alloc;
  j.partition = g.nodes[on.front()].partitions.back();
  j.alloc = std::move(alloc);
}

// Running jobs fill the busy nodes: about a third of all jobs, multi-node
// ones when jobs are scarcer than busy nodes, several per node otherwise.
void RunJobs(Gen& g) {
  std::vector<size_t> busy;
  for (size_t i = 0; i < g.plans.size(); ++i)
    if (g.plans[i].target_cpus > 0) busy.push_back(i);
  int64_t running = g.opt.jobs == 0 ? 0 : std::max<int64_t>(1, g.opt.jobs * 35 / 100);
  if (busy.empty()) running = 0;
  if (running == 0) {
    for (size_t i : busy) {
      g.plans[i].target_cpus = 0;
      g.plans[i].kind = Kind::kIdle;
    }
    return;
  }
  const auto b = static_cast<int64_t>(busy.size());
  if (running <= b) {
    int64_t pos = 0;  // over consecutive busy nodes
    for (int64_t k = 0; k < running; ++k) {
      const int64_t span = (b - pos) / (running - k);
      std::vector<size_t> on(busy.begin() + pos, busy.begin() + pos + span);
      pos += span;
      JobIn j = NewJob(g, AnyUser(g));
      Allocate(g, j, on, 1 << 20);
      g.jobs.push_back(std::move(j));
    }
  } else {
    for (int64_t k = 0; k < running; ++k) {
      const size_t ni = busy[static_cast<size_t>(k % b)];
      const int64_t share = running / b + (k % b < running % b ? 1 : 0);
      const NodePlan& p = g.plans[ni];
      const int left = p.target_cpus - static_cast<int>(p.alloc_cpus);
      const int64_t remaining_jobs = share - k / b;
      const int c = static_cast<int>(std::max<int64_t>(1, remaining_jobs > 1 ? left / remaining_jobs : left));
      JobIn j = NewJob(g, AnyUser(g));
      Allocate(g, j, {ni}, c);
      g.jobs.push_back(std::move(j));
    }
  }
  for (JobIn& j : g.jobs) {
    j.state = {"RUNNING"};
    const int64_t start = g.now - g.rng.Range(60, 2 * 86400);
    j.start_time = Num::Of(start);
    j.submit_time = Num::Of(start - g.rng.Range(0, 3600));
    j.end_time = Num::Of(EndOf(j, start));
    if (g.rng.Chance(0.05)) {  // an array task
      j.array_job_id = Num::Of(j.job_id - g.rng.Range(0, 50));
      j.array_task_id = Num::Of(g.rng.Range(0, 99));
    }
  }
  for (NodePlan& p : g.plans) {
    // Whatever the jobs took is what the node reports.
    if (p.kind == Kind::kMixed && p.alloc_cpus >= p.cpus) p.kind = Kind::kAllocated;
    if (p.kind == Kind::kAllocated && p.alloc_cpus > 0 && p.alloc_cpus < p.cpus) p.kind = Kind::kMixed;
  }
}

void Pending(Gen& g, JobIn& j) {
  j.state = {"PENDING"};
  j.state_reason = g.rng.Pick(PendingReasons());
  const std::vector<std::string>& parts = g.partitions;
  if (parts.size() > 2 && g.rng.Chance(0.1)) j.partition = parts[0] + "," + parts[2];
  if (g.rng.Chance(0.3)) {  // with an estimated start
    const int64_t start = g.now + g.rng.Range(600, 2 * 86400);
    j.start_time = Num::Of(start);
    j.end_time = Num::Of(EndOf(j, start));
  }
}

void PendingArray(Gen& g, JobIn& j) {
  j.state = {"PENDING"};
  j.state_reason = "Priority";
  j.array_job_id = Num::Of(j.job_id);
  const int64_t lo = g.rng.Range(0, 10), hi = lo + g.rng.Range(5, 500);
  j.array_task_string = std::to_string(lo) + "-" + std::to_string(hi);
  if (g.rng.Chance(0.4)) {
    j.array_max_tasks = g.rng.Range(2, 20);
    j.array_task_string += "%" + std::to_string(j.array_max_tasks);
  }
}

// Ended within MinJobAge; some never started, some still completing.
void Finished(Gen& g, JobIn& j) {
  Rng& rng = g.rng;
  static const std::vector<std::string> kEnds = {
      "COMPLETED", "COMPLETED", "COMPLETED", "FAILED", "CANCELLED",
      "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL"};
  j.state = {rng.Pick(kEnds)};
  if (rng.Chance(0.1)) j.state.push_back("COMPLETING");
  j.state_reason = j.state[0] == "COMPLETED" ? "None"
                 : j.state[0] == "NODE_FAIL" ? "NodeDown"
                 : j.state[0] == "TIMEOUT" ? "TimeLimit"
                 : j.state[0] == "OUT_OF_MEMORY" ? "OutOfMemory" : "NonZeroExitCode";
  const int64_t end = g.now - rng.Range(0, 590);
  const int64_t start = j.state[0] == "CANCELLED" && rng.Chance(0.3) ? 0 : end - rng.Range(0, 86400);
  j.end_time = Num::Of(end);
  j.start_time = Num::Of(start);
  j.submit_time = Num::Of((start ? start : end) - rng.Range(0, 3600));
  if (!start) return;
  std::vector<size_t> hosts;
  const size_t first = static_cast<size_t>(rng.Range(0, g.opt.nodes - 1));
  for (int64_t h = 0; h < j.node_count.value && static_cast<size_t>(h) < g.nodes.size(); ++h)
    hosts.push_back((first + static_cast<size_t>(h)) % g.nodes.size());
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  j.node_count = Num::Of(static_cast<int64_t>(hosts.size()));
  j.nodes = HostsOf(g, hosts);
  j.tres_alloc = j.tres_req;
}

// The jobs that do not run: pending, held, pending arrays, finished, a few
// suspended.
void OtherJobs(Gen& g) {
  Rng& rng = g.rng;
  const std::vector<std::string>& parts = g.partitions;
  for (auto k = static_cast<int64_t>(g.jobs.size()); k < g.opt.jobs; ++k) {
    JobIn j = NewJob(g, AnyUser(g));
    const double r = rng.Unit();
    const int gpus = rng.Chance(0.6) ? static_cast<int>(rng.Range(1, 8)) : 0;
    const int64_t nodes = rng.Chance(0.8) ? 1 : rng.Range(2, 16);
    const int64_t cpus = nodes * rng.Pick(std::vector<int64_t>{1, 4, 8, 16, 32, 64});
    const int64_t mem_per_node = rng.Pick(std::vector<int64_t>{4000, 32000, 128000, 512000});
    j.node_count = Num::Of(nodes);
    j.cpus = Num::Of(cpus);
    j.memory_per_node = Num::Of(mem_per_node);
    j.tres_req = Tres(cpus, mem_per_node * nodes, nodes, gpus * static_cast<int>(nodes));
    j.partition = gpus ? parts[std::min<size_t>(1, parts.size() - 1)] : parts[0];
    if (r < 0.45) {
      Pending(g, j);
    } else if (r < 0.55) {
      j.state = {"PENDING"};
      j.state_reason = rng.Chance(0.7) ? "JobHeldUser" : "JobHeldAdmin";
      j.priority = Num::Of(0);
    } else if (r < 0.62) {
      PendingArray(g, j);
    } else if (r < 0.97) {
      Finished(g, j);
    } else {
      j.state = {"SUSPENDED"};
      j.state_reason = "None";
      const int64_t start = g.now - rng.Range(3600, 86400);
      j.start_time = Num::Of(start);
      j.end_time = Num::Of(start + 7 * 86400);
    }
    g.jobs.push_back(std::move(j));
  }
}

std::vector<std::string> StateWords(const NodePlan& p) {
  const char* busy = p.alloc_cpus < p.cpus ? "MIXED" : "ALLOCATED";
  switch (p.kind) {
    case Kind::kIdle: return {"IDLE"};
    case Kind::kMixed: return {p.alloc_cpus == 0 ? "IDLE" : "MIXED"};
    case Kind::kAllocated: return {"ALLOCATED"};
    case Kind::kDrained: return {"IDLE", "DRAIN"};
    case Kind::kDraining: return {busy, "DRAIN"};
    case Kind::kDown: return {"DOWN", "NOT_RESPONDING"};
    case Kind::kNotResponding: return {"IDLE", "NOT_RESPONDING"};
    case Kind::kReserved: return {"IDLE", "RESERVED"};
    case Kind::kPoweredDown: return {"IDLE", "CLOUD", "POWERED_DOWN"};
    case Kind::kMaint: return {"IDLE", "MAINTENANCE", "RESERVED"};
    case Kind::kFail: return {"IDLE", "DRAIN", "FAIL"};
    case Kind::kCompleting: return {busy, "COMPLETING"};
    case Kind::kPlanned: return {"IDLE", "PLANNED"};
  }
  return {"IDLE"};
}

// A node's record from its plan, once every job is placed.
void FinishNode(Rng& rng, const NodePlan& p, NodeIn& n) {
  n.state = StateWords(p);
  n.cpus = n.effective_cpus = Num::Of(p.cpus);
  n.alloc_cpus = Num::Of(p.alloc_cpus);
  n.cores = Num::Of(p.cores);
  n.sockets = Num::Of(p.sockets);
  n.threads = Num::Of(p.threads);
  n.real_memory = Num::Of(p.mem_mb);
  n.alloc_memory = Num::Of(p.alloc_mem);
  n.specialized_memory = Num::Of(p.spec_mb);
  const bool answers = p.kind != Kind::kDown && p.kind != Kind::kNotResponding &&
                       p.kind != Kind::kPoweredDown;
  n.free_mem = answers ? Num::Of(std::max<int64_t>(0, p.mem_mb - p.alloc_mem - rng.Range(0, 4096)))
                       : Num{Num::kUnset, 0};
  n.tres = Tres(p.cpus, p.mem_mb, 0, p.gpus);
  n.tres_used = p.alloc_cpus ? Tres(p.alloc_cpus, p.alloc_mem, 0, p.alloc_gpus) : "";
}

// sdiag: `--rpc-types` real RPC names of this release, the common ones
// first (a long tail, a type with time but no calls), one entry per user.
DiagIn Diag(Gen& g) {
  static const char* const kCommon[] = {
      "REQUEST_NODE_INFO", "REQUEST_JOB_INFO", "REQUEST_PARTITION_INFO", "REQUEST_PING",
      "MESSAGE_NODE_REGISTRATION_STATUS", "REQUEST_SUBMIT_BATCH_JOB",
      "REQUEST_COMPLETE_BATCH_SCRIPT", "REQUEST_STATS_INFO", "REQUEST_JOB_INFO_SINGLE",
      "REQUEST_BUILD_INFO", "REQUEST_UPDATE_NODE", "MESSAGE_EPILOG_COMPLETE",
      "REQUEST_STEP_COMPLETE", "REQUEST_JOB_STEP_CREATE", "REQUEST_RESOURCE_ALLOCATION",
      "REQUEST_KILL_JOB", "REQUEST_CANCEL_JOB_STEP", "REQUEST_JOB_USER_INFO",
      "REQUEST_FED_INFO", "REQUEST_NODE_INFO_SINGLE", "REQUEST_COMPLETE_PROLOG",
      "REQUEST_JOB_READY", "REQUEST_UPDATE_JOB", "REQUEST_RESERVATION_INFO"};
  const auto& known = g.opt.known_rpcs;
  std::vector<std::pair<uint16_t, std::string>> chosen;
  for (const char* name : kCommon)
    for (const auto& k : known)
      if (k.second == name) chosen.push_back(k);
  for (const auto& k : known)
    if (std::find(chosen.begin(), chosen.end(), k) == chosen.end()) chosen.push_back(k);
  if (static_cast<int64_t>(chosen.size()) > g.opt.rpc_types)
    chosen.resize(static_cast<size_t>(g.opt.rpc_types));

  const int64_t jobs = g.opt.jobs;
  DiagIn d;
  d.server_thread_count = Num::Of(g.rng.Range(1, 12));
  d.values = {{"req_time", g.now}, {"req_time_start", g.now - 86400},
              {"agent_queue_size", 0}, {"agent_count", 0}, {"agent_thread_count", 0},
              {"dbd_agent_queue_size", 0}, {"jobs_submitted", jobs * 3},
              {"jobs_started", jobs * 2}, {"jobs_completed", jobs},
              {"jobs_canceled", jobs / 20}, {"jobs_failed", jobs / 50},
              {"schedule_cycle_max", 214748}, {"schedule_cycle_last", 1873},
              {"schedule_cycle_sum", 6442450944LL}, {"schedule_cycle_total", 52833}};
  for (size_t k = 0; k < chosen.size(); ++k) {
    const int64_t count = k + 1 == chosen.size() && k > 3 ? 0
                        : static_cast<int64_t>(2e6 / static_cast<double>((k + 1) * (k + 1)));
    const int64_t time = count ? count * g.rng.Range(50, 40000) : (k % 2 ? 17 : 0);
    d.rpc_types.push_back({chosen[k].second, chosen[k].first, count, time});
  }
  d.rpc_users.push_back({"root", 0, 1500000, 7384185912LL});
  for (const User& u : g.users) {
    const int64_t c = g.rng.Range(0, 50000);
    d.rpc_users.push_back({u.resolvable ? u.name : "", u.uid, c, c * g.rng.Range(100, 5000)});
  }
  return d;
}

}  // namespace

// ---- Shared with the accounting side (generate_parts.h) -------------------

// uid 10001.. "user0001"; every 25th cannot be resolved.
std::vector<User> Users(int64_t count) {
  std::vector<User> out;
  for (int64_t i = 0; i < count; ++i) {
    char b[32];
    snprintf(b, sizeof b, "user%04d", static_cast<int>(i + 1));
    out.push_back({10001 + i, b, (i + 1) % 25 != 0});
  }
  return out;
}

std::string JobAccount(int64_t uid, int64_t accounts) {
  return "acct-" + std::to_string(uid % accounts);
}

std::string RangedHosts(const std::vector<std::string>& names) {
  std::map<std::string, std::vector<int>> by_prefix;
  std::vector<std::string> order;
  for (const std::string& name : names) {
    const std::string prefix = name.substr(0, name.size() - 5);
    if (!by_prefix.count(prefix)) order.push_back(prefix);
    by_prefix[prefix].push_back(std::stoi(name.substr(name.size() - 5)));
  }
  std::string out;
  for (const std::string& prefix : order) {
    std::vector<int>& nums = by_prefix[prefix];
    std::sort(nums.begin(), nums.end());
    if (!out.empty()) out += ',';
    if (nums.size() == 1) {
      char b[16];
      snprintf(b, sizeof b, "%05d", nums[0]);
      out += prefix + b;
      continue;
    }
    out += prefix + "[";
    for (size_t i = 0; i < nums.size();) {
      size_t j = i;
      while (j + 1 < nums.size() && nums[j + 1] == nums[j] + 1) ++j;
      char b[32];
      if (j == i) snprintf(b, sizeof b, "%05d", nums[i]);
      else snprintf(b, sizeof b, "%05d-%05d", nums[i], nums[j]);
      if (i) out += ',';
      out += b;
      i = j + 1;
    }
    out += "]";
  }
  return out;
}

ClusterIn GenerateCluster(const GenerateOptions& opt) {
  Gen g(opt);
  g.partitions = PartitionNames(opt.partitions);
  g.users = Users(opt.users);
  g.nodes.reserve(static_cast<size_t>(opt.nodes));
  for (int64_t i = 0; i < opt.nodes; ++i) MakeNode(g, i);
  Reserve(g);
  g.jobs.reserve(static_cast<size_t>(opt.jobs));
  RunJobs(g);
  OtherJobs(g);
  for (size_t i = 0; i < g.nodes.size(); ++i) FinishNode(g.rng, g.plans[i], g.nodes[i]);
  ClusterIn c;
  c.cluster_name = "synthetic";
  c.diag = Diag(g);
  c.nodes = std::move(g.nodes);
  c.jobs = std::move(g.jobs);
  GenerateAccounting(opt, g.rng, g.users, g.reservations, c);
  return c;
}

void Generate(const GenerateOptions& opt) {
  if (mkdir(opt.out.c_str(), 0755) != 0 && errno != EEXIST)
    throw InputError(opt.out + ": cannot create: " + std::strerror(errno));
  const ClusterIn c = GenerateCluster(opt);
  WriteDumps(c, opt.now, opt.out);
  int64_t busy_nodes = 0, running_jobs = 0;
  for (const NodeIn& n : *c.nodes) busy_nodes += n.alloc_cpus.value > 0;
  for (const JobIn& j : *c.jobs) running_jobs += j.state[0] == "RUNNING";
  std::cerr << "soperator-metrics-shim: wrote " << opt.out << "/nodes.json ("
            << c.nodes->size() << " nodes, " << busy_nodes << " busy), " << opt.out
            << "/jobs.json (" << c.jobs->size() << " jobs, " << running_jobs
            << " running), " << opt.out << "/sdiag.json, " << opt.out << "/sshare.json ("
            << c.shares->size() << " lines), " << opt.out << "/qos.json (" << c.qos->size()
            << " QoS), " << opt.out << "/licenses.json (" << c.licenses->size() << " licenses), "
            << opt.out << "/reservations.json (" << c.reservations->size()
            << " reservations); now=" << opt.now << "\n";
}

}  // namespace shim
