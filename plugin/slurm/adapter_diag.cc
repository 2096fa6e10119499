// SPDX-License-Identifier: GPL-2.0-or-later
// sdiag's numbers. The per-RPC-type and per-user counters are static inside
// slurmctld's proc_req.c, so the only way to them is the same
// REQUEST_STATS_INFO RPC sdiag sends, here from our own collector thread
// (never from a slurmctld worker, which could deadlock waiting on itself).
#include <cerrno>
#include <mutex>

#include "adapter.h"
#include "adapter_util.h"

namespace sm::slurm {
namespace {

#if SM_SLURM_AT_LEAST(23, 2)
// Which slot of schedule_exit[] (SCHEDULE_EXIT_*) and bf_exit[] (BF_EXIT_*)
// feeds which field.
template <typename Exits>
struct ExitSlot {
  int slot;
  uint64_t Exits::*field;
};

const ExitSlot<ScheduleExits> kScheduleExits[] = {
    {SCHEDULE_EXIT_END, &ScheduleExits::end_job_queue},
    {SCHEDULE_EXIT_MAX_DEPTH, &ScheduleExits::default_queue_depth},
    {SCHEDULE_EXIT_MAX_JOB_START, &ScheduleExits::max_job_start},
    {SCHEDULE_EXIT_LIC, &ScheduleExits::licenses},
    {SCHEDULE_EXIT_RPC_CNT, &ScheduleExits::max_rpc_cnt},
    {SCHEDULE_EXIT_TIMEOUT, &ScheduleExits::max_sched_time},
};

const ExitSlot<BackfillExits> kBackfillExits[] = {
    {BF_EXIT_END, &BackfillExits::end_job_queue},
    {BF_EXIT_MAX_JOB_START, &BackfillExits::bf_max_job_start},
    {BF_EXIT_MAX_JOB_TEST, &BackfillExits::bf_max_job_test},
    {BF_EXIT_STATE_CHANGED, &BackfillExits::state_changed},
    {BF_EXIT_TABLE_LIMIT, &BackfillExits::bf_node_space_size},
    {BF_EXIT_TIMEOUT, &BackfillExits::bf_max_time},
};

template <typename Exits, size_t N>
void CopyExits(const uint32_t* counts, uint32_t n,
               const ExitSlot<Exits> (&slots)[N], Exits& out) {
  for (const ExitSlot<Exits>& s : slots) {
    if (counts && s.slot >= 0 && static_cast<uint32_t>(s.slot) < n)
      out.*s.field = counts[s.slot];
  }
}
#endif

// Per RPC type and per user: count and total time.
void CopyRpcStats(const stats_info_response_msg_t* resp, UserNames& users,
                  DiagSnapshot* snap) {
  Arena& arena = snap->arena;
  {
    // rpc_num2string() formats unknown opcodes into a static buffer.
    static std::mutex names_mu;
    std::lock_guard lock(names_mu);
    for (uint32_t i = 0; i < resp->rpc_type_size; ++i) {
      RpcTypeStat s;
      s.message_type = arena.StoreCString(rpc_num2string(resp->rpc_type_id[i]));
      s.count = resp->rpc_type_cnt[i];
      s.total_time_us = resp->rpc_type_time[i];
      snap->rpc_types.push_back(s);
    }
  }
  for (uint32_t i = 0; i < resp->rpc_user_size; ++i) {
    RpcUserStat s;
    s.user_id = resp->rpc_user_id[i];
    s.user = arena.Store(users.Name(resp->rpc_user_id[i]));
    s.count = resp->rpc_user_cnt[i];
    s.total_time_us = resp->rpc_user_time[i];
    snap->rpc_users.push_back(s);
  }
}

// The main scheduler's and backfill's counters, field by field.
void CopySchedulerStats(const stats_info_response_msg_t* resp,
                        SchedulerStats& st) {
  st.time = resp->req_time;
  st.req_time_start = resp->req_time_start;
  st.agent_queue_size = resp->agent_queue_size;
  st.agent_count = resp->agent_count;
  st.agent_thread_count = resp->agent_thread_count;
  st.dbd_agent_queue_size = resp->dbd_agent_queue_size;
  st.latency = resp->gettimeofday_latency;
  st.jobs_submitted = resp->jobs_submitted;
  st.jobs_started = resp->jobs_started;
  st.jobs_completed = resp->jobs_completed;
  st.jobs_canceled = resp->jobs_canceled;
  st.jobs_failed = resp->jobs_failed;
  st.jobs_pending = resp->jobs_pending;
  st.jobs_running = resp->jobs_running;
  st.job_states_ts = resp->job_states_ts;
  st.schedule_cycle_max = resp->schedule_cycle_max;
  st.schedule_cycle_last = resp->schedule_cycle_last;
  st.schedule_cycle_sum = resp->schedule_cycle_sum;
  st.schedule_cycle_counter = resp->schedule_cycle_counter;
  st.schedule_cycle_depth = resp->schedule_cycle_depth;
  st.schedule_queue_len = resp->schedule_queue_len;
  st.bf_backfilled_jobs = resp->bf_backfilled_jobs;
  st.bf_last_backfilled_jobs = resp->bf_last_backfilled_jobs;
  st.bf_backfilled_het_jobs = resp->bf_backfilled_het_jobs;
  st.bf_cycle_counter = resp->bf_cycle_counter;
  st.bf_cycle_sum = resp->bf_cycle_sum;
  st.bf_cycle_last = resp->bf_cycle_last;
  st.bf_cycle_max = resp->bf_cycle_max;
  st.bf_last_depth = resp->bf_last_depth;
  st.bf_last_depth_try = resp->bf_last_depth_try;
  st.bf_depth_sum = resp->bf_depth_sum;
  st.bf_depth_try_sum = resp->bf_depth_try_sum;
  st.bf_queue_len = resp->bf_queue_len;
  st.bf_queue_len_sum = resp->bf_queue_len_sum;
  st.bf_table_size = resp->bf_table_size;
  st.bf_table_size_sum = resp->bf_table_size_sum;
  st.bf_when_last_cycle = resp->bf_when_last_cycle;
  st.bf_active = resp->bf_active;
#if SM_SLURM_AT_LEAST(23, 2)
  CopyExits(resp->schedule_exit, resp->schedule_exit_cnt, kScheduleExits,
            st.schedule_exit);
  CopyExits(resp->bf_exit, resp->bf_exit_cnt, kBackfillExits, st.bf_exit);
#endif
}

}  // namespace

std::shared_ptr<DiagSnapshot> ControllerSource::CollectDiag(LockTiming&,
                                                            std::string& error) {
  const LockGateScope gate(locks_closed_);  // adapter_util.h
  stats_info_request_msg_t req = {};
  req.command_id = STAT_COMMAND_GET;
  stats_info_response_msg_t* resp = nullptr;
  // slurmctld's handler of this RPC takes its locks: the rule of ours
  // applies (adapter_util.h).
  ThrowIfLocksClosed();
  if (slurm_get_statistics(&resp, &req) != SLURM_SUCCESS || !resp) {
    error = std::string("sdiag statistics RPC failed: ") + slurm_strerror(errno);
    return nullptr;
  }
  auto snap = std::make_shared<DiagSnapshot>();
  snap->server_thread_count = resp->server_thread_count;
  CopyRpcStats(resp, users_, snap.get());
  CopySchedulerStats(resp, snap->sched);
  slurm_free_stats_response_msg(resp);
  return snap;
}

}  // namespace sm::slurm
