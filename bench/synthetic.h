// SPDX-License-Identifier: GPL-2.0-or-later
// Synthetic controller state for benchmarks: realistic name and path
// lengths and a mix of node and job states, deterministic for a seed.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "model/snapshot.h"

namespace sm::bench {

inline std::shared_ptr<NodeSnapshot> SyntheticNodes(int count, uint32_t seed = 1) {
  auto s = std::make_shared<NodeSnapshot>();
  std::mt19937 rng(seed);
  const int partitions = 8;
  std::string parts[partitions];
  for (int p = 0; p < partitions; ++p) parts[p] = "partition-" + std::to_string(p);
  for (int i = 0; i < count; ++i) {
    Node n;
    char name[64];
    std::snprintf(name, sizeof name, "gpu-h100-r%03d-n%05d", i / 64, i);
    n.name = s->arena.Store(name);
    n.address = s->arena.Store("10." + std::to_string(i / 65536) + "." +
                               std::to_string((i / 256) % 256) + "." +
                               std::to_string(i % 256));
    n.instance_id = s->arena.Store("computeinstance-e00" + std::to_string(100000 + i));
    n.tres = "cpu=128,mem=1547000M,billing=128,gres/gpu=8";
    const int roll = static_cast<int>(rng() % 100);
    if (roll < 55) {
      n.state = {NodeBase::kAllocated, 0};
    } else if (roll < 75) {
      n.state = {NodeBase::kMixed, 0};
    } else if (roll < 90) {
      n.state = {NodeBase::kIdle, 0};
    } else if (roll < 95) {
      n.state = {NodeBase::kIdle, node_flag::kDrain};
      n.reason = s->arena.Store("NHC: GPU " + std::to_string(rng() % 8) +
                                " XID 79 \"fallen off the bus\" reported");
    } else {
      n.state = {NodeBase::kDown, node_flag::kNotResponding};
      n.reason = "Not responding";
    }
    // slurmctld stores MIXED nodes as ALLOCATED; Slurm's statistics class
    // them as the client does here (partly allocated).
    n.stored_base =
        n.state.base == NodeBase::kMixed ? NodeBase::kAllocated : n.state.base;
    n.statistics_base = n.state.base;
    if (i % 50 == 0) n.comment = "rack maintenance window 2026-12-01, ticket OPS-4711";
    n.partitions = {parts[i % partitions], "all"};
    n.cpus = 128;
    n.alloc_cpus = n.state.base == NodeBase::kAllocated ? 128
                   : n.state.base == NodeBase::kMixed   ? 64
                                                        : 0;
    n.alloc_idle_cpus = 128 - *n.alloc_cpus;
    n.effective_cpus = 128;
    n.real_memory_mb = 1547000;
    n.alloc_memory_mb = *n.alloc_cpus * 12000;
    n.free_memory_mb = 1547000 - *n.alloc_memory_mb;
    n.specialized_memory_mb = 0;
    n.gpus_total = 8;
    n.gpus_alloc = *n.alloc_cpus / 16;
    s->nodes.push_back(n);
  }
  for (int p = 0; p < partitions; ++p) {
    Partition part;
    part.name = parts[p];
    for (int i = p; i < count; i += partitions) part.node_indices.push_back(i);
    s->partitions.push_back(part);
  }
  return s;
}

inline std::shared_ptr<JobSnapshot> SyntheticJobs(int count, int nodes,
                                                  uint32_t seed = 2) {
  auto s = std::make_shared<JobSnapshot>();
  std::mt19937 rng(seed);
  for (int i = 0; i < count; ++i) {
    Job j;
    j.id = 1000000 + i;
    const int user = static_cast<int>(rng() % 25);
    j.user_id = 10000 + user;
    j.user_name = s->arena.Store("researcher" + std::to_string(user));
    j.account = s->arena.Store("team" + std::to_string(user % 7));
    j.mail_user = j.user_name;
    j.name = s->arena.Store("llm-pretrain-7b-lr3e-4-seed" + std::to_string(i % 97));
    j.partition = s->arena.Store("partition-" + std::to_string(i % 8));
    j.statistics_partition = j.partition;
    j.submit_time = 1795000000 + i;
    const int roll = static_cast<int>(rng() % 100);
    if (roll < 20) {
      j.state = JobBase::kRunning;
      j.state_reason = "None";
      j.start_time = *j.submit_time + 60;
      j.end_time = *j.start_time + 86400;
      const int first = static_cast<int>(rng() % std::max(nodes - 4, 1));
      char list[64];
      std::snprintf(list, sizeof list, "gpu-h100-r%03d-n[%05d-%05d]", first / 64,
                    first, first + 3);
      j.nodes = s->arena.Store(list);
      j.node_count = 4;
      j.tres_alloc = "cpu=512,mem=6000G,node=4,billing=512,gres/gpu=32";
      for (int k = 0; k < 4; ++k) j.node_indices.push_back(first + k);
      j.cpus_alloc = 512;
      j.gpus_alloc = 32;
    } else if (roll < 85) {
      j.state = JobBase::kPending;
      j.state_reason = roll < 60 ? "Priority" : "Resources";
      j.start_time = 0;
      j.end_time = 0;
      j.node_count = 4;
      if (roll % 10 == 0) {
        j.array_job_id = j.id;
        j.array_task_string = "0-999%16";
        j.array_pending_tasks = 1000;
      }
    } else {
      j.state = roll < 95 ? JobBase::kCompleted : JobBase::kFailed;
      j.state_reason = roll < 95 ? "None" : "NonZeroExitCode";
      j.start_time = *j.submit_time + 30;
      j.end_time = *j.start_time + 3600;
      j.nodes = "gpu-h100-r000-n00001";
    }
    if (!j.array_job_id) j.array_job_id = 0;
    j.tres_req = "cpu=512,mem=6000G,node=4,billing=512,gres/gpu=32";
    j.cpus = 512;
    j.std_out = s->arena.Store("/home/researcher" + std::to_string(user) +
                               "/runs/pretrain/logs/slurm-" + std::to_string(j.id) +
                               ".out");
    j.std_err = j.std_out;
    s->jobs.push_back(j);
  }
  return s;
}

inline std::shared_ptr<DiagSnapshot> SyntheticDiag(int rpc_types = 60, int users = 25) {
  auto s = std::make_shared<DiagSnapshot>();
  s->server_thread_count = 12;
  for (int i = 0; i < rpc_types; ++i)
    s->rpc_types.push_back({s->arena.Store("REQUEST_TYPE_" + std::to_string(i)),
                            1000u + i * 17u, 123456789u + i});
  for (int i = 0; i < users; ++i)
    s->rpc_users.push_back({s->arena.Store("researcher" + std::to_string(i)),
                            static_cast<uint32_t>(10000 + i), 500u + i, 987654u + i});
  return s;
}

}  // namespace sm::bench
