// SPDX-License-Identifier: GPL-2.0-or-later
// The Slurm 26.05.3 sample cluster (../shared/reference/slurm-samples/
// 26.05.3/) as snapshots, and the real metrics/openmetrics responses taken
// from it (tests/fixtures/native-26.05.3/), for the native_*_test files.
//
// The snapshots are a hand translation of scontrol_show_nodes.json,
// scontrol_show_partitions.json, squeue.json and sdiag.json: 3 nodes
// (ghost1, ghost2 without a slurmd, vm with one), partitions debug = vm,ghost1
// and batch = all, six job records of root with an empty account.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "serving/endpoints.h"
#include "model/snapshot.h"

namespace sm::testing {

// Node positions in SampleNodes().nodes (JSON order: ghost1, ghost2, vm).
inline constexpr uint32_t kGhost1 = 0;
inline constexpr uint32_t kGhost2 = 1;
inline constexpr uint32_t kVm = 2;

inline Node SampleNode(std::string_view name, NodeBase base, uint32_t flags) {
  Node n;
  n.name = name;
  n.state = {base, flags};
  n.stored_base = base;
  n.statistics_base = base;
  n.cpus = 2;
  n.alloc_cpus = 0;
  n.alloc_idle_cpus = 2;
  n.effective_cpus = 2;
  n.real_memory_mb = 2000;
  n.alloc_memory_mb = 0;
  n.specialized_memory_mb = 0;
  n.tres = "cpu=2,mem=2000M,billing=2";
  return n;
}

inline NodeSnapshot SampleNodes() {
  using namespace node_flag;
  NodeSnapshot s;
  // "state": ["UNKNOWN", "DRAIN", "NOT_RESPONDING"], free_mem unset.
  Node ghost1 =
      SampleNode("ghost1", NodeBase::kUnknown, kDrain | kNotResponding);
  ghost1.partitions = {"debug", "batch"};
  // "state": ["DOWN", "NOT_RESPONDING"], free_mem unset.
  Node ghost2 = SampleNode("ghost2", NodeBase::kDown, kNotResponding);
  ghost2.partitions = {"batch"};
  // "state": ["ALLOCATED"], alloc_cpus 2, tres_used "cpu=2", free_mem 23583.
  Node vm = SampleNode("vm", NodeBase::kAllocated, 0);
  vm.partitions = {"debug", "batch"};
  vm.alloc_cpus = 2;
  vm.alloc_idle_cpus = 0;
  vm.free_memory_mb = 23583;
  s.nodes = {ghost1, ghost2, vm};

  Partition debug;
  debug.name = "debug";
  debug.node_indices = {kGhost1, kVm};
  debug.total_cpus = 4;
  debug.total_nodes = 2;
  Partition batch;
  batch.name = "batch";
  batch.node_indices = {kGhost1, kGhost2, kVm};
  batch.total_cpus = 6;
  batch.total_nodes = 3;
  s.partitions = {debug, batch};
  return s;
}

inline Job SampleJob(uint32_t id, JobBase state, std::string_view reason,
                     std::string_view partition) {
  Job j;
  j.id = id;
  j.state = state;
  j.state_reason = reason;
  j.partition = partition;
  j.statistics_partition = partition;  // every job names one partition
  j.user_id = 0;
  j.user_name = "root";
  j.account = "";
  j.min_nodes = 1;  // sbatch without -N
  j.max_nodes = 0;  // "max_nodes": 0 = no maximum
  return j;
}

inline JobSnapshot SampleJobs() {
  JobSnapshot s;
  // job_list order: 1, 2, 6, 4, 5, 3 (the split-out array task 6 kept the
  // meta record's slot; the meta record 3 was appended).
  Job j1 = SampleJob(1, JobBase::kRunning, "None", "debug");
  j1.cpus_alloc = 1;  // tres_alloc_str cpu=1,node=1,billing=1: no mem
  j1.node_indices = {kVm};
  Job j2 = SampleJob(2, JobBase::kPending, "JobHeldUser", "debug");
  j2.held = true;  // WAIT_HELD_USER
  j2.max_nodes = 1;
  Job j6 = SampleJob(6, JobBase::kRunning, "None", "debug");
  j6.array_job_id = 3;
  j6.array_task_id = 0;
  j6.cpus_alloc = 1;
  j6.node_indices = {kVm};
  Job j4 = SampleJob(4, JobBase::kPending, "Priority", "debug");
  Job j5 = SampleJob(5, JobBase::kPending, "Resources", "batch");
  Job j3 = SampleJob(3, JobBase::kPending, "Resources", "debug");
  j3.array_job_id = 3;
  j3.array_task_string = "1-3";
  j3.array_pending_tasks = 3;
  s.jobs = {j1, j2, j6, j4, j5, j3};
  return s;
}

inline DiagSnapshot SampleDiag() {
  DiagSnapshot d;
  d.server_thread_count = 1;
  SchedulerStats& s = d.sched;
  s.time = 1795977615;  // req_time
  s.req_time_start = 1795977591;
  s.agent_queue_size = 0;
  s.agent_count = 1;
  s.agent_thread_count = 4;
  s.dbd_agent_queue_size = 0;
  s.latency = 26;
  s.schedule_cycle_max = 7428;
  s.schedule_cycle_last = 391;
  s.schedule_cycle_sum = 8498;
  s.schedule_cycle_counter = 3;
  s.schedule_cycle_depth = 8;
  s.schedule_exit.end_job_queue = 3;
  s.schedule_queue_len = 3;
  s.jobs_submitted = 8;
  s.jobs_started = 2;
  s.job_states_ts = 1795977591;
  s.bf_when_last_cycle = 0;
  return d;
}

// ---- The real responses ----------------------------------------------------

// One response: its comment lines and its series ("name{labels}" → value).
struct Exposition {
  std::vector<std::string> comments;
  std::map<std::string, double> series;
};

// Parses an exposition body; with `http`, skips the status line and
// headers first (the samples are raw HTTP responses).
inline Exposition ParseExposition(const std::string& text, bool http) {
  Exposition e;
  std::istringstream in(text);
  std::string line;
  if (http) {
    while (std::getline(in, line) && line != "\r" && !line.empty()) {
    }
  }
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '#') {
      e.comments.push_back(line);
      continue;
    }
    const size_t space = line.rfind(' ');
    EXPECT_NE(space, std::string::npos) << line;
    if (space == std::string::npos) continue;
    const std::string key = line.substr(0, space);
    EXPECT_EQ(e.series.count(key), 0u) << "duplicate series " << key;
    e.series[key] = std::strtod(line.c_str() + space + 1, nullptr);
  }
  return e;
}

inline std::string ReadFixture(std::string_view name) {
  const std::string path =
      std::string(SM_TEST_FIXTURES) + "/native-26.05.3/" + std::string(name);
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << path;
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

inline Exposition Sample(std::string_view path) {
  return ParseExposition(
      ReadFixture("http_metrics_" + std::string(path) + ".txt"),
      /*http=*/true);
}

// A sample series we cannot reproduce from the JSON dumps because they were
// taken 12 s after the scrape (docs/native-semantics.md §7): Slurm's value
// and the one our translation of the JSON must give.
struct Exception {
  std::string series;
  double slurm;
  double ours;
};

// A series key as Prometheus stores it: a label with an empty value is no
// label (Slurm drops such labels, we print them empty).
inline std::string StoredSeries(const std::string& key) {
  const size_t open = key.find('{');
  if (open == std::string::npos) return key;
  std::string out = key.substr(0, open), pairs;
  static const std::regex kPair(R"re(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)")re");
  const std::string labels = key.substr(open);
  for (auto it = std::sregex_iterator(labels.begin(), labels.end(), kPair);
       it != std::sregex_iterator(); ++it) {
    if ((*it)[2].length() == 0) continue;
    pairs += (pairs.empty() ? "" : ",") + it->str();
  }
  return pairs.empty() ? out : out + "{" + pairs + "}";
}

inline Exposition Stored(const Exposition& e) {
  Exposition out;
  out.comments = e.comments;
  for (const auto& [key, value] : e.series) {
    EXPECT_EQ(out.series.count(StoredSeries(key)), 0u)
        << "one stored series twice: " << key;
    out.series[StoredSeries(key)] = value;
  }
  return out;
}

// Every series of `sample` is in `ours` with the same value (or, for an
// exception, both sides carry the documented values), and `ours` has no
// series the sample lacks; series compared as Prometheus stores them.
inline void ExpectSameSeries(const Exposition& sample_text,
                             const Exposition& ours_text,
                             const std::vector<Exception>& exceptions = {}) {
  const Exposition sample = Stored(sample_text), ours = Stored(ours_text);
  std::map<std::string, const Exception*> except;
  for (const Exception& x : exceptions) except[x.series] = &x;
  for (const auto& [key, value] : sample.series) {
    const auto it = ours.series.find(key);
    if (it == ours.series.end()) {
      ADD_FAILURE() << "missing series " << key;
      continue;
    }
    const auto x = except.find(key);
    if (x != except.end()) {
      EXPECT_EQ(value, x->second->slurm) << "sample " << key;
      EXPECT_EQ(it->second, x->second->ours) << "ours " << key;
      continue;
    }
    EXPECT_EQ(it->second, value) << key;
  }
  for (const auto& [key, value] : ours.series) {
    EXPECT_TRUE(sample.series.count(key))
        << "extra series " << key << " " << value;
  }
  for (const Exception& x : exceptions) {
    EXPECT_TRUE(sample.series.count(x.series))
        << "stale exception " << x.series;
  }
}

// Every HELP and TYPE line of the sample appears verbatim in `ours`.
inline void ExpectSameComments(const Exposition& sample,
                               const Exposition& ours) {
  for (const std::string& c : sample.comments) {
    EXPECT_NE(std::find(ours.comments.begin(), ours.comments.end(), c),
              ours.comments.end())
        << c;
  }
  EXPECT_EQ(ours.comments.size(), sample.comments.size());
}

}  // namespace sm::testing
