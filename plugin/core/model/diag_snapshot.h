// SPDX-License-Identifier: GPL-2.0-or-later
// slurmctld's statistics as sdiag prints them (diag_stats_t and the RPC
// counters), copied by the adapter (adapter_diag.cc); part of the contract
// snapshot.h describes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/arena.h"

namespace sm {

// ---- Controller statistics (sdiag) ---------------------------------------

struct RpcTypeStat {
  std::string_view message_type;  // rpc_num2string(), e.g. REQUEST_NODE_INFO
  uint64_t count = 0;
  uint64_t total_time_us = 0;
};

struct RpcUserStat {
  std::string_view user;  // "" when the uid does not resolve
  uint32_t user_id = 0;
  uint64_t count = 0;
  uint64_t total_time_us = 0;
};

// Why the main scheduler's cycles ended, counted (schedule_exit[], by
// SCHEDULE_EXIT_*).
struct ScheduleExits {
  uint64_t end_job_queue = 0;
  uint64_t default_queue_depth = 0;
  uint64_t max_job_start = 0;
  uint64_t licenses = 0;
  uint64_t max_rpc_cnt = 0;
  uint64_t max_sched_time = 0;
};

// Why the backfill cycles ended, counted (bf_exit[], by BF_EXIT_*).
struct BackfillExits {
  uint64_t end_job_queue = 0;
  uint64_t bf_max_job_start = 0;
  uint64_t bf_max_job_test = 0;
  uint64_t state_changed = 0;
  uint64_t bf_node_space_size = 0;
  uint64_t bf_max_time = 0;
};

// slurmctld's diag_stats_t and the values sdiag prints beside it.
struct SchedulerStats {
  int64_t time = 0;                 // when the statistics were taken
  int64_t req_time_start = 0;       // last statistics reset
  uint64_t agent_queue_size = 0;
  uint64_t agent_count = 0;
  uint64_t agent_thread_count = 0;
  uint64_t dbd_agent_queue_size = 0;
  uint64_t jobs_submitted = 0;
  uint64_t jobs_started = 0;
  uint64_t jobs_completed = 0;
  uint64_t jobs_canceled = 0;
  uint64_t jobs_failed = 0;
  uint64_t jobs_pending = 0;
  uint64_t jobs_running = 0;
  int64_t job_states_ts = 0;
  uint64_t schedule_cycle_max = 0;
  uint64_t schedule_cycle_last = 0;
  uint64_t schedule_cycle_sum = 0;
  uint64_t schedule_cycle_counter = 0;
  uint64_t schedule_cycle_depth = 0;
  uint64_t schedule_queue_len = 0;
  ScheduleExits schedule_exit;  // zero before 23.02
  uint64_t bf_backfilled_jobs = 0;
  uint64_t bf_last_backfilled_jobs = 0;
  uint64_t bf_backfilled_het_jobs = 0;
  uint64_t bf_cycle_counter = 0;
  uint64_t bf_cycle_sum = 0;
  uint64_t bf_cycle_last = 0;
  uint64_t bf_cycle_max = 0;
  uint64_t bf_last_depth = 0;
  uint64_t bf_last_depth_try = 0;
  uint64_t bf_depth_sum = 0;
  uint64_t bf_depth_try_sum = 0;
  uint64_t bf_queue_len = 0;
  uint64_t bf_queue_len_sum = 0;
  uint64_t bf_table_size = 0;
  uint64_t bf_table_size_sum = 0;
  int64_t bf_when_last_cycle = 0;
  uint64_t bf_active = 0;
  BackfillExits bf_exit;  // zero before 23.02
  uint64_t latency = 0;
};

struct DiagSnapshot {
  Arena arena;
  std::optional<int64_t> server_thread_count;
  std::vector<RpcTypeStat> rpc_types;
  std::vector<RpcUserStat> rpc_users;
  SchedulerStats sched;
};

}  // namespace sm
