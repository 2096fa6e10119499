// SPDX-License-Identifier: GPL-2.0-or-later
// The synthetic cluster is built to be self-consistent the way a real
// controller's dumps are: busy nodes are busy because running jobs hold
// their CPUs (job_resources add up to each node's alloc_cpus and
// alloc_memory), MIXED nodes are partly allocated, drained and down nodes
// carry reasons, pending jobs have no nodes, finished jobs ended within
// MinJobAge. Strings have production-like lengths and include quotes,
// backslashes and non-ASCII text.
#include "generate.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <random>

#include "input.h"
#include "vocabulary.h"

namespace shim {
namespace {

class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  int64_t Range(int64_t lo, int64_t hi) {  // inclusive
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen_);
  }
  double Unit() { return std::uniform_real_distribution<double>(0, 1)(gen_); }
  bool Chance(double p) { return Unit() < p; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(Range(0, static_cast<int64_t>(v.size()) - 1))];
  }
  std::string Alnum(int n) {
    static const char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::string s;
    for (int i = 0; i < n; ++i) s += kChars[Range(0, 35)];
    return s;
  }

 private:
  std::mt19937_64 gen_;
};

// ---- A small streaming JSON writer -------------------------------------------

class Out {
 public:
  explicit Out(const std::string& path) : path_(path), f_(path, std::ios::binary) {
    if (!f_) throw InputError(path + ": cannot write: " + std::strerror(errno));
    buf_.reserve(1 << 20);
  }
  ~Out() { Flush(); }
  void Raw(std::string_view s) {
    buf_ += s;
    if (buf_.size() > (1 << 20)) Flush();
  }
  void Key(std::string_view k) {
    if (need_comma_.back()) buf_ += ',';
    need_comma_.back() = true;
    Str(k);
    buf_ += ':';
    after_key_ = true;
  }
  void KStr(std::string_view k, std::string_view v) { Key(k); Before(); Str(v); }
  void KInt(std::string_view k, int64_t v) { Key(k); Before(); buf_ += std::to_string(v); }
  void KBool(std::string_view k, bool v) { Key(k); Before(); buf_ += v ? "true" : "false"; }
  // data_parser's {"set":..,"infinite":..,"number":..}
  void KNum(std::string_view k, int64_t v) {
    Key(k);
    Before();
    buf_ += "{\"set\":true,\"infinite\":false,\"number\":" + std::to_string(v) + "}";
  }
  void KUnset(std::string_view k) {
    Key(k);
    Before();
    buf_ += "{\"set\":false,\"infinite\":false,\"number\":0}";
  }
  void KInf(std::string_view k) {
    Key(k);
    Before();
    buf_ += "{\"set\":false,\"infinite\":true,\"number\":0}";
  }
  void KStrs(std::string_view k, const std::vector<std::string>& v) {
    Key(k);
    Before();
    buf_ += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) buf_ += ',';
      Str(v[i]);
    }
    buf_ += ']';
  }
  void Open(char c) {  // '{' or '['
    Before();
    buf_ += c;
    need_comma_.push_back(false);
  }
  void Close(char c) {
    buf_ += c;
    need_comma_.pop_back();
    if (buf_.size() > (1 << 20)) Flush();
  }

 private:
  // Before a value: a comma between array elements, none after a key.
  void Before() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (need_comma_.back()) buf_ += ',';
    need_comma_.back() = true;
  }
  void Str(std::string_view s) {
    buf_ += '"';
    for (char c : s) {
      switch (c) {
        case '"': buf_ += "\\\""; break;
        case '\\': buf_ += "\\\\"; break;
        case '\n': buf_ += "\\n"; break;
        case '\t': buf_ += "\\t"; break;
        case '\r': buf_ += "\\r"; break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            char b[8];
            snprintf(b, sizeof b, "\\u%04x", c);
            buf_ += b;
          } else {
            buf_ += c;
          }
      }
    }
    buf_ += '"';
  }
  void Flush() {
    f_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
    if (!f_) throw InputError(path_ + ": write error");
  }
  std::string path_;
  std::ofstream f_;
  std::string buf_;
  std::vector<bool> need_comma_{false};
  bool after_key_ = false;
};

void Meta(Out& o, const char* command, int64_t now) {
  o.Key("meta");
  o.Open('{');
  o.Key("plugin");
  o.Open('{');
  o.KStr("type", "");
  o.KStr("name", "");
  o.KStr("data_parser", "data_parser/v0.0.45");
  o.KStr("accounting_storage", "");
  o.Close('}');
  o.Key("client");
  o.Open('{');
  o.KStr("source", "soperator-metrics-shim generate");
  o.KStr("user", "root");
  o.KStr("group", "root");
  o.Close('}');
  o.KStrs("command", {command});
  o.Key("slurm");
  o.Open('{');
  o.Key("version");
  o.Open('{');
  o.KStr("major", "26");
  o.KStr("micro", "3");
  o.KStr("minor", "05");
  o.Close('}');
  o.KStr("release", "26.05.3");
  o.KStr("cluster", "synthetic");
  o.Close('}');
  o.Close('}');
  o.KNum("last_update", now);
}

// ---- The cluster ----------------------------------------------------------------

enum class Kind {
  kIdle, kMixed, kAllocated, kDrained, kDraining, kDown, kNotResponding,
  kReserved, kPoweredDown, kMaint, kFail, kCompleting, kPlanned
};

struct GNode {
  std::string name;
  int number;
  bool gpu;
  int cpus, cores, sockets, threads;
  int64_t mem_mb, spec_mb;
  int gpus;
  Kind kind;
  std::vector<std::string> partitions;
  std::string reservation;
  std::string reason;
  int64_t reason_time = 0;
  std::string comment, address, instance_id;
  // Filled by the jobs that run on it.
  int64_t alloc_cpus = 0, alloc_mem = 0;
  int alloc_gpus = 0;
  int target_cpus = 0;
};

struct GAlloc {
  size_t node;
  int cpus;
  int64_t mem;
  int gpus;
};

struct GJob {
  int64_t id;
  std::string name;
  std::vector<std::string> state;
  std::string reason = "None";
  std::string partition, account, user, mail, cwd, out, err, nodes, comment;
  int64_t uid;
  int64_t cpus = 1, node_count = 1, mem_per_node = 0, mem_per_cpu = -1;
  int64_t array_job_id = 0, array_task_id = -1;
  std::string array_task_string;
  int64_t array_max = 0;
  int64_t submit = 0, start = 0, end = 0, limit = -1, priority = 1;
  std::string tres_alloc, tres_req;
  std::vector<GAlloc> alloc;
  bool held = false;
};

// Consecutive runs of numbered names in Slurm's ranged form.
std::string RangedHosts(const std::vector<const GNode*>& nodes) {
  std::map<std::string, std::vector<int>> by_prefix;
  std::vector<std::string> order;
  for (const GNode* n : nodes) {
    const std::string prefix = n->name.substr(0, n->name.size() - 5);
    if (!by_prefix.count(prefix)) order.push_back(prefix);
    by_prefix[prefix].push_back(n->number);
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

}  // namespace

void Generate(const GenerateOptions& opt) {
  Rng rng(opt.seed);
  const int64_t now = opt.now;
  if (mkdir(opt.out.c_str(), 0755) != 0 && errno != EEXIST)
    throw InputError(opt.out + ": cannot create: " + std::strerror(errno));

  // Partitions.
  std::vector<std::string> partitions;
  static const char* const kPartNames[] = {"main", "gpu", "cpu", "debug", "long", "preempt"};
  for (int64_t i = 0; i < opt.partitions; ++i)
    partitions.push_back(i < 6 ? std::string(kPartNames[i]) : "part" + std::to_string(i));

  // Users: uid 10001.. "user0001"; every 25th cannot be resolved.
  struct GUser {
    int64_t uid;
    std::string name;
    bool resolvable;
  };
  std::vector<GUser> users;
  for (int64_t i = 0; i < opt.users; ++i) {
    char b[32];
    snprintf(b, sizeof b, "user%04d", static_cast<int>(i + 1));
    users.push_back({10001 + i, b, (i + 1) % 25 != 0});
  }

  // Nodes.
  std::vector<GNode> nodes(static_cast<size_t>(opt.nodes));
  for (int64_t i = 0; i < opt.nodes; ++i) {
    GNode& n = nodes[static_cast<size_t>(i)];
    n.gpu = i % 3 != 2;
    n.number = static_cast<int>(i + 1);
    char b[32];
    snprintf(b, sizeof b, "%s-%05d", n.gpu ? "gpu-h100" : "cpu-epyc", n.number);
    n.name = b;
    if (n.gpu) {
      n.cpus = 128;
      n.sockets = 2;
      n.cores = 32;
      n.threads = 2;
      n.mem_mb = 1546000;
      n.spec_mb = 16384;
      n.gpus = 8;
    } else {
      static const int kCpus[] = {64, 96, 192};
      n.cpus = kCpus[rng.Range(0, 2)];
      n.sockets = 2;
      n.threads = 2;
      n.cores = n.cpus / 4;
      n.mem_mb = n.cpus * 4000;
      n.spec_mb = rng.Chance(0.5) ? 2048 : 0;
      n.gpus = 0;
    }
    const double r = rng.Unit();
    n.kind = r < 0.28 ? Kind::kIdle : r < 0.52 ? Kind::kMixed : r < 0.75 ? Kind::kAllocated
           : r < 0.80 ? Kind::kDrained : r < 0.83 ? Kind::kDraining : r < 0.87 ? Kind::kDown
           : r < 0.89 ? Kind::kNotResponding : r < 0.91 ? Kind::kPoweredDown
           : r < 0.93 ? Kind::kMaint : r < 0.94 ? Kind::kFail : r < 0.96 ? Kind::kCompleting
           : r < 0.97 ? Kind::kPlanned : Kind::kIdle;
    n.partitions.push_back(partitions[0]);
    if (partitions.size() > 1) n.partitions.push_back(n.gpu ? partitions[1] : partitions[std::min<size_t>(2, partitions.size() - 1)]);
    if (partitions.size() > 3 && rng.Chance(0.3)) n.partitions.push_back(partitions[3 + static_cast<size_t>(rng.Range(0, static_cast<int64_t>(partitions.size()) - 4))]);
    std::sort(n.partitions.begin(), n.partitions.end());
    n.partitions.erase(std::unique(n.partitions.begin(), n.partitions.end()), n.partitions.end());
    snprintf(b, sizeof b, "10.%d.%d.%d", static_cast<int>(i / 65536 % 256),
             static_cast<int>(i / 256 % 256), static_cast<int>(i % 256));
    n.address = b;
    n.instance_id = "computeinstance-e00" + rng.Alnum(17);
    if (rng.Chance(0.2))
      n.comment = "{\"rack\": \"R" + std::to_string(rng.Range(1, 40)) +
                  "\", \"note\": \"replaced PSU 2026-0" + std::to_string(rng.Range(1, 9)) + "\"}";
    const bool needs_reason = n.kind == Kind::kDrained || n.kind == Kind::kDraining ||
                              n.kind == Kind::kDown || n.kind == Kind::kFail ||
                              n.kind == Kind::kMaint;
    if (needs_reason) {
      n.reason = rng.Pick(Reasons());
      n.reason_time = now - rng.Range(60, 14 * 86400);
    }
    switch (n.kind) {
      case Kind::kMixed: n.target_cpus = static_cast<int>(n.cpus * rng.Range(1, 7) / 8); break;
      case Kind::kAllocated:
      case Kind::kCompleting: n.target_cpus = n.cpus; break;
      case Kind::kDraining: n.target_cpus = rng.Chance(0.5) ? n.cpus : n.cpus / 2; break;
      default: n.target_cpus = 0;
    }
  }
  // Reservations on idle nodes.
  std::vector<std::string> reservations;
  for (int64_t r = 0; r < opt.reservations; ++r) {
    if (r == 0)
      reservations.push_back("maint-2026-12-01");
    else if (r == 1)  // longer than Soperator's 50 code points
      reservations.push_back("réservation-équipe-recherche-modèles-de-langage-très-grands-2027");
    else
      reservations.push_back("project-" + rng.Alnum(8) + "-" + std::to_string(r));
  }
  if (!reservations.empty()) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      GNode& n = nodes[i];
      if (n.kind == Kind::kIdle && rng.Chance(0.15)) {
        n.kind = Kind::kReserved;
        n.reservation = reservations[i % reservations.size()];
      }
    }
  }

  // Running jobs fill the busy nodes: about a third of all jobs.
  std::vector<size_t> busy;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].target_cpus > 0) busy.push_back(i);
  int64_t running = opt.jobs == 0 ? 0 : std::max<int64_t>(1, opt.jobs * 35 / 100);
  if (busy.empty()) running = 0;
  if (running == 0) {
    for (size_t i : busy) {
      nodes[i].target_cpus = 0;
      nodes[i].kind = Kind::kIdle;
    }
    busy.clear();
  }
  std::vector<GJob> jobs;
  jobs.reserve(static_cast<size_t>(opt.jobs));
  int64_t next_id = 100000;
  auto new_job = [&](const GUser& u) {
    GJob j;
    j.id = next_id++;
    j.uid = u.uid;
    j.user = u.resolvable ? u.name : "";
    j.mail = j.user;
    if (rng.Chance(0.1)) j.mail = u.name + "@example.org";
    j.account = "acct-" + std::to_string(u.uid % 7);
    j.name = rng.Pick(JobNames());
    j.cwd = "/home/" + u.name + "/work/" + rng.Alnum(6);
    j.out = rng.Chance(0.7) ? "slurm-%j.out" : "/mnt/data/" + u.name + "/logs/%x-%j.out";
    j.err = rng.Chance(0.8) ? "" : "/mnt/data/" + u.name + "/logs/%x-%j.err";
    if (rng.Chance(0.05)) j.comment = "priority bump requested by \"ops\" \\ see OPS-" + std::to_string(rng.Range(1000, 9999));
    j.limit = rng.Pick(std::vector<int64_t>{60, 240, 1440, 4320, -2});
    j.submit = now - rng.Range(30, 3 * 86400);
    j.priority = rng.Range(1000, 100000);
    return j;
  };
  auto alloc_job = [&](GJob& j, const std::vector<size_t>& on, int cpus_each_max) {
    int64_t total_cpus = 0, total_mem = 0;
    int total_gpus = 0;
    std::vector<const GNode*> hosts;
    for (size_t ni : on) {
      GNode& n = nodes[ni];
      const int left = n.target_cpus - static_cast<int>(n.alloc_cpus);
      const int c = std::max(1, std::min(left, cpus_each_max));
      const int64_t m = static_cast<int64_t>(c) * ((n.mem_mb - n.spec_mb) / n.cpus);
      const int g = n.gpus > 0 ? std::max(0, std::min(n.gpus - n.alloc_gpus, (c * n.gpus + n.cpus - 1) / n.cpus)) : 0;
      n.alloc_cpus += c;
      n.alloc_mem += m;
      n.alloc_gpus += g;
      j.alloc.push_back({ni, c, m, g});
      total_cpus += c;
      total_mem += m;
      total_gpus += g;
      hosts.push_back(&n);
    }
    j.nodes = RangedHosts(hosts);
    j.node_count = static_cast<int64_t>(on.size());
    j.cpus = total_cpus;
    j.mem_per_node = on.empty() ? 0 : total_mem / static_cast<int64_t>(on.size());
    j.tres_alloc = Tres(total_cpus, total_mem, j.node_count, total_gpus);
    j.tres_req = j.tres_alloc;
    j.partition = nodes[on.front()].partitions.back();
  };
  if (running > 0) {
    const auto b = static_cast<int64_t>(busy.size());
    if (running <= b) {
      // Multi-node jobs over consecutive busy nodes.
      int64_t pos = 0;
      for (int64_t k = 0; k < running; ++k) {
        const int64_t span = (b - pos) / (running - k);
        std::vector<size_t> on(busy.begin() + pos, busy.begin() + pos + span);
        pos += span;
        GJob j = new_job(users[static_cast<size_t>(rng.Range(0, opt.users - 1))]);
        alloc_job(j, on, 1 << 20);
        jobs.push_back(std::move(j));
      }
    } else {
      // Several single-node jobs per busy node.
      for (int64_t k = 0; k < running; ++k) {
        const size_t ni = busy[static_cast<size_t>(k % b)];
        const int64_t share = running / b + (k % b < running % b ? 1 : 0);
        GNode& n = nodes[ni];
        const int left = n.target_cpus - static_cast<int>(n.alloc_cpus);
        const int64_t remaining_jobs = share - k / b;
        const int c = static_cast<int>(std::max<int64_t>(1, remaining_jobs > 1 ? left / remaining_jobs : left));
        GJob j = new_job(users[static_cast<size_t>(rng.Range(0, opt.users - 1))]);
        alloc_job(j, {ni}, c);
        jobs.push_back(std::move(j));
      }
    }
    for (GJob& j : jobs) {
      j.state = {"RUNNING"};
      j.start = now - rng.Range(60, 2 * 86400);
      j.submit = j.start - rng.Range(0, 3600);
      j.end = j.limit > 0 ? j.start + j.limit * 60 : j.start + 365LL * 86400;
      if (rng.Chance(0.05)) {  // an array task
        j.array_job_id = j.id - rng.Range(0, 50);
        j.array_task_id = rng.Range(0, 99);
      }
    }
  }
  for (GNode& n : nodes) {
    // Whatever the jobs took is what the node reports.
    if (n.kind == Kind::kMixed && n.alloc_cpus >= n.cpus) n.kind = Kind::kAllocated;
    if (n.kind == Kind::kAllocated && n.alloc_cpus > 0 && n.alloc_cpus < n.cpus) n.kind = Kind::kMixed;
  }

  // The rest: pending, held, arrays, finished, a few suspended.
  for (int64_t k = static_cast<int64_t>(jobs.size()); k < opt.jobs; ++k) {
    GJob j = new_job(users[static_cast<size_t>(rng.Range(0, opt.users - 1))]);
    const double r = rng.Unit();
    const int gpus = rng.Chance(0.6) ? static_cast<int>(rng.Range(1, 8)) : 0;
    j.node_count = rng.Chance(0.8) ? 1 : rng.Range(2, 16);
    j.cpus = j.node_count * rng.Pick(std::vector<int64_t>{1, 4, 8, 16, 32, 64});
    j.mem_per_node = rng.Pick(std::vector<int64_t>{4000, 32000, 128000, 512000});
    j.tres_req = Tres(j.cpus, j.mem_per_node * j.node_count, j.node_count, gpus * static_cast<int>(j.node_count));
    j.partition = gpus ? partitions[std::min<size_t>(1, partitions.size() - 1)] : partitions[0];
    if (r < 0.45) {
      j.state = {"PENDING"};
      j.reason = rng.Pick(PendingReasons());
      if (partitions.size() > 2 && rng.Chance(0.1)) j.partition = partitions[0] + "," + partitions[2];
      if (rng.Chance(0.3)) {
        j.start = now + rng.Range(600, 2 * 86400);
        j.end = j.limit > 0 ? j.start + j.limit * 60 : j.start + 365LL * 86400;
      }
    } else if (r < 0.55) {
      j.state = {"PENDING"};
      j.reason = rng.Chance(0.7) ? "JobHeldUser" : "JobHeldAdmin";
      j.priority = 0;
      j.held = true;
    } else if (r < 0.62) {
      j.state = {"PENDING"};
      j.reason = "Priority";
      j.array_job_id = j.id;
      const int64_t lo = rng.Range(0, 10), hi = lo + rng.Range(5, 500);
      j.array_task_string = std::to_string(lo) + "-" + std::to_string(hi);
      if (rng.Chance(0.4)) {
        j.array_max = rng.Range(2, 20);
        j.array_task_string += "%" + std::to_string(j.array_max);
      }
    } else if (r < 0.97) {
      static const std::vector<std::string> kEnds = {
          "COMPLETED", "COMPLETED", "COMPLETED", "FAILED", "CANCELLED",
          "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL"};
      j.state = {rng.Pick(kEnds)};
      if (rng.Chance(0.1)) j.state.push_back("COMPLETING");
      j.reason = j.state[0] == "COMPLETED" ? "None"
               : j.state[0] == "NODE_FAIL" ? "NodeDown"
               : j.state[0] == "TIMEOUT" ? "TimeLimit"
               : j.state[0] == "OUT_OF_MEMORY" ? "OutOfMemory" : "NonZeroExitCode";
      j.end = now - rng.Range(0, 590);
      j.start = j.state[0] == "CANCELLED" && rng.Chance(0.3) ? 0 : j.end - rng.Range(0, 86400);
      j.submit = (j.start ? j.start : j.end) - rng.Range(0, 3600);
      if (j.start) {
        std::vector<const GNode*> hosts;
        const size_t first = static_cast<size_t>(rng.Range(0, opt.nodes - 1));
        for (int64_t h = 0; h < j.node_count && static_cast<size_t>(h) < nodes.size(); ++h)
          hosts.push_back(&nodes[(first + static_cast<size_t>(h)) % nodes.size()]);
        std::sort(hosts.begin(), hosts.end());
        hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
        j.node_count = static_cast<int64_t>(hosts.size());
        j.nodes = RangedHosts(hosts);
        j.tres_alloc = j.tres_req;
      }
    } else {
      j.state = {"SUSPENDED"};
      j.reason = "None";
      j.start = now - rng.Range(3600, 86400);
      j.end = j.start + 7 * 86400;
    }
    jobs.push_back(std::move(j));
  }

  // ---- nodes.json ----
  {
    Out o(opt.out + "/nodes.json");
    o.Open('{');
    o.Key("nodes");
    o.Open('[');
    for (const GNode& n : nodes) {
      o.Open('{');
      o.KStr("name", n.name);
      std::vector<std::string> st;
      switch (n.kind) {
        case Kind::kIdle: st = {"IDLE"}; break;
        case Kind::kMixed: st = {"MIXED"}; break;
        case Kind::kAllocated: st = {"ALLOCATED"}; break;
        case Kind::kDrained: st = {"IDLE", "DRAIN"}; break;
        case Kind::kDraining: st = {n.alloc_cpus < n.cpus ? "MIXED" : "ALLOCATED", "DRAIN"}; break;
        case Kind::kDown: st = {"DOWN", "NOT_RESPONDING"}; break;
        case Kind::kNotResponding: st = {"IDLE", "NOT_RESPONDING"}; break;
        case Kind::kReserved: st = {"IDLE", "RESERVED"}; break;
        case Kind::kPoweredDown: st = {"IDLE", "CLOUD", "POWERED_DOWN"}; break;
        case Kind::kMaint: st = {"IDLE", "MAINTENANCE", "RESERVED"}; break;
        case Kind::kFail: st = {"IDLE", "DRAIN", "FAIL"}; break;
        case Kind::kCompleting: st = {n.alloc_cpus < n.cpus ? "MIXED" : "ALLOCATED", "COMPLETING"}; break;
        case Kind::kPlanned: st = {"IDLE", "PLANNED"}; break;
      }
      if (n.kind == Kind::kMixed && n.alloc_cpus == 0) st = {"IDLE"};
      o.KStrs("state", st);
      o.KStr("cluster_name", "");
      o.KStr("address", n.address);
      o.KStr("hostname", n.name);
      o.KStr("comment", n.comment);
      o.KStr("reason", n.reason);
      o.KNum("reason_changed_at", n.reason_time);
      o.KStr("reason_set_by_user", n.reason.empty() ? "" : "root");
      o.KStr("instance_id", n.instance_id);
      o.KStr("instance_type", n.gpu ? "gpu-h100-sxm-8gpu-128vcpu-1600gb" : "cpu-e2-" + std::to_string(n.cpus) + "vcpu");
      o.KStr("reservation", n.reservation);
      o.KStrs("partitions", n.partitions);
      o.KInt("cpus", n.cpus);
      o.KInt("effective_cpus", n.cpus);
      o.KInt("alloc_cpus", n.alloc_cpus);
      o.KInt("alloc_idle_cpus", n.cpus - n.alloc_cpus);
      o.KInt("cores", n.cores);
      o.KInt("sockets", n.sockets);
      o.KInt("threads", n.threads);
      o.KInt("real_memory", n.mem_mb);
      o.KInt("alloc_memory", n.alloc_mem);
      o.KInt("specialized_memory", n.spec_mb);
      const bool answers = n.kind != Kind::kDown && n.kind != Kind::kNotResponding &&
                           n.kind != Kind::kPoweredDown;
      if (answers) o.KNum("free_mem", std::max<int64_t>(0, n.mem_mb - n.alloc_mem - rng.Range(0, 4096)));
      else o.KUnset("free_mem");
      std::string tres = Tres(n.cpus, n.mem_mb, 0, n.gpus);
      o.KStr("tres", tres);
      o.KStr("tres_used", n.alloc_cpus ? Tres(n.alloc_cpus, n.alloc_mem, 0, n.alloc_gpus) : "");
      o.KStr("gres", n.gpus ? "gpu:nvidia_h100_80gb_hbm3:8(S:0-1)" : "");
      o.KStr("version", "26.05.3");
      o.Close('}');
    }
    o.Close(']');
    Meta(o, "scontrol show nodes --json", now);
    o.Key("errors");
    o.Open('[');
    o.Close(']');
    o.Key("warnings");
    o.Open('[');
    o.Close(']');
    o.Close('}');
    o.Raw("\n");
  }

  // ---- jobs.json ----
  {
    Out o(opt.out + "/jobs.json");
    o.Open('{');
    o.Key("jobs");
    o.Open('[');
    for (const GJob& j : jobs) {
      o.Open('{');
      o.KStr("account", j.account);
      o.KNum("array_job_id", j.array_job_id);
      if (j.array_task_id >= 0) o.KNum("array_task_id", j.array_task_id);
      else o.KUnset("array_task_id");
      o.KNum("array_max_tasks", j.array_max);
      o.KStr("array_task_string", j.array_task_string);
      o.KBool("batch_flag", j.name != "interactive" && j.name != "bash");
      o.KStr("cluster", "synthetic");
      o.KStr("comment", j.comment);
      o.KStr("current_working_directory", j.cwd);
      o.KNum("end_time", j.end);
      o.KInt("group_id", j.uid);
      o.KStr("group_name", j.user);
      o.KBool("hold", j.held);
      o.KInt("job_id", j.id);
      if (!j.alloc.empty()) {
        o.Key("job_resources");
        o.Open('{');
        o.KStrs("select_type", {"CR_CORE_MEMORY"});
        o.Key("nodes");
        o.Open('{');
        o.KInt("count", static_cast<int64_t>(j.alloc.size()));
        o.KStr("list", j.nodes);
        o.Key("allocation");
        o.Open('[');
        for (size_t k = 0; k < j.alloc.size(); ++k) {
          const GAlloc& a = j.alloc[k];
          o.Open('{');
          o.KInt("index", static_cast<int64_t>(k));
          o.KStr("name", nodes[a.node].name);
          o.Key("cpus");
          o.Open('{');
          o.KInt("count", a.cpus);
          o.KInt("used", 0);
          o.Close('}');
          o.Key("memory");
          o.Open('{');
          o.KInt("used", 0);
          o.KInt("allocated", a.mem);
          o.Close('}');
          o.Close('}');
        }
        o.Close(']');
        o.Close('}');
        o.KInt("cpus", j.cpus);
        o.Close('}');
      }
      o.KStrs("job_state", j.state);
      o.KStr("mail_user", j.mail);
      o.KUnset("memory_per_cpu");
      o.KNum("memory_per_node", j.mem_per_node);
      o.KStr("name", j.name);
      o.KNum("node_count", j.node_count);
      o.KStr("nodes", j.nodes);
      o.KStr("partition", j.partition);
      o.KNum("priority", j.priority);
      o.KNum("cpus", j.cpus);
      o.KStr("standard_error", j.err);
      o.KStr("standard_input", "/dev/null");
      o.KStr("standard_output", j.out);
      o.KNum("start_time", j.start);
      o.KStr("state_reason", j.reason);
      o.KNum("submit_time", j.submit);
      if (j.limit > 0) o.KNum("time_limit", j.limit);
      else o.KInf("time_limit");
      o.KStr("tres_alloc_str", j.tres_alloc);
      o.KStr("tres_req_str", j.tres_req);
      o.KInt("user_id", j.uid);
      o.KStr("user_name", j.user);
      o.Close('}');
    }
    o.Close(']');
    Meta(o, "squeue --json", now);
    o.Key("errors");
    o.Open('[');
    o.Close(']');
    o.Close('}');
    o.Raw("\n");
  }

  // ---- sdiag.json ----
  {
    static const char* const kCommon[] = {
        "REQUEST_NODE_INFO", "REQUEST_JOB_INFO", "REQUEST_PARTITION_INFO", "REQUEST_PING",
        "MESSAGE_NODE_REGISTRATION_STATUS", "REQUEST_SUBMIT_BATCH_JOB",
        "REQUEST_COMPLETE_BATCH_SCRIPT", "REQUEST_STATS_INFO", "REQUEST_JOB_INFO_SINGLE",
        "REQUEST_BUILD_INFO", "REQUEST_UPDATE_NODE", "MESSAGE_EPILOG_COMPLETE",
        "REQUEST_STEP_COMPLETE", "REQUEST_JOB_STEP_CREATE", "REQUEST_RESOURCE_ALLOCATION",
        "REQUEST_KILL_JOB", "REQUEST_CANCEL_JOB_STEP", "REQUEST_JOB_USER_INFO",
        "REQUEST_FED_INFO", "REQUEST_NODE_INFO_SINGLE", "REQUEST_COMPLETE_PROLOG",
        "REQUEST_JOB_READY", "REQUEST_UPDATE_JOB", "REQUEST_RESERVATION_INFO"};
    const auto known = KnownRpcs();
    std::vector<std::pair<uint16_t, std::string>> chosen;
    for (const char* name : kCommon)
      for (const auto& k : known)
        if (k.second == name) chosen.push_back(k);
    for (const auto& k : known) {
      if (std::find(chosen.begin(), chosen.end(), k) == chosen.end()) chosen.push_back(k);
    }
    if (static_cast<int64_t>(chosen.size()) > opt.rpc_types)
      chosen.resize(static_cast<size_t>(opt.rpc_types));
    Out o(opt.out + "/sdiag.json");
    o.Open('{');
    o.Key("statistics");
    o.Open('{');
    o.KNum("req_time", now);
    o.KNum("req_time_start", now - 86400);
    o.KInt("server_thread_count", rng.Range(1, 12));
    o.KInt("agent_queue_size", 0);
    o.KInt("agent_count", 0);
    o.KInt("agent_thread_count", 0);
    o.KInt("dbd_agent_queue_size", 0);
    o.KInt("jobs_submitted", opt.jobs * 3);
    o.KInt("jobs_started", opt.jobs * 2);
    o.KInt("jobs_completed", opt.jobs);
    o.KInt("jobs_canceled", opt.jobs / 20);
    o.KInt("jobs_failed", opt.jobs / 50);
    o.KInt("schedule_cycle_max", 214748);
    o.KInt("schedule_cycle_last", 1873);
    o.KInt("schedule_cycle_sum", 6442450944LL);
    o.KInt("schedule_cycle_total", 52833);
    o.Key("rpcs_by_message_type");
    o.Open('[');
    for (size_t k = 0; k < chosen.size(); ++k) {
      o.Open('{');
      o.KInt("type_id", chosen[k].first);
      o.KStr("message_type", chosen[k].second);
      // A long tail; a few never-called types; one with time but no calls.
      const int64_t count = k + 1 == chosen.size() && k > 3 ? 0
                          : static_cast<int64_t>(2e6 / static_cast<double>((k + 1) * (k + 1)));
      o.KInt("count", count);
      o.KInt("total_time", count ? count * rng.Range(50, 40000) : (k % 2 ? 17 : 0));
      o.Close('}');
    }
    o.Close(']');
    o.Key("rpcs_by_user");
    o.Open('[');
    o.Open('{');
    o.KInt("user_id", 0);
    o.KStr("user", "root");
    o.KInt("count", 1500000);
    o.KInt("total_time", 7384185912LL);
    o.Close('}');
    for (const GUser& u : users) {
      o.Open('{');
      o.KInt("user_id", u.uid);
      o.KStr("user", u.resolvable ? u.name : "");
      const int64_t c = rng.Range(0, 50000);
      o.KInt("count", c);
      o.KInt("total_time", c * rng.Range(100, 5000));
      o.Close('}');
    }
    o.Close(']');
    o.Close('}');
    Meta(o, "sdiag --json", now);
    o.Key("errors");
    o.Open('[');
    o.Close(']');
    o.Close('}');
    o.Raw("\n");
  }

  int64_t busy_nodes = 0, running_jobs = 0;
  for (const GNode& n : nodes) busy_nodes += n.alloc_cpus > 0;
  for (const GJob& j : jobs) running_jobs += j.state[0] == "RUNNING";
  std::cerr << "soperator-metrics-shim: wrote " << opt.out << "/nodes.json ("
            << nodes.size() << " nodes, " << busy_nodes << " busy), " << opt.out
            << "/jobs.json (" << jobs.size() << " jobs, " << running_jobs
            << " running), " << opt.out << "/sdiag.json; now=" << now << "\n";
}

}  // namespace shim
