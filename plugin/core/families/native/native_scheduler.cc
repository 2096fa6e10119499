// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/native/native_scheduler.h"

#include "families/native/native_common.h"

namespace sm {
namespace {

using native::Spec;
using native::Width;

struct Row {
  Spec spec;
  uint64_t (*value)(const DiagSnapshot&);
};

const SchedulerStats& S(const DiagSnapshot& d) { return d.sched; }

uint64_t Time(int64_t t) { return t > 0 ? static_cast<uint64_t>(t) : 0; }

// statistics_get_sched(): integer means, 0 before the first cycle.
uint64_t Mean(uint64_t sum, uint64_t count) { return count ? sum / count : 0; }

constexpr bool kCounter = true;
constexpr auto k32 = Width::k32;
constexpr auto k64 = Width::k64;
constexpr auto kNoUnit = native::Unit::kNone;

// Counters only grow between slurmctld start, the daily reset (UTC
// midnight) and `sdiag --reset`; Prometheus handles those resets.
const Row kRows[] = {
    {{"slurm_agent_cnt", "Number of agent threads"},
     [](const DiagSnapshot& d) { return S(d).agent_count; }},
    {{"slurm_agent_queue_size", "Outgoing RPC retry queue length"},
     [](const DiagSnapshot& d) { return S(d).agent_queue_size; }},
    {{"slurm_agent_thread_cnt", "Total active agent-created threads"},
     [](const DiagSnapshot& d) { return S(d).agent_thread_count; }},
    {{"slurm_bf_depth_mean", "Mean backfill cycle depth"},
     [](const DiagSnapshot& d) {
       return Mean(S(d).bf_depth_sum, S(d).bf_cycle_counter);
     }},
    {{"slurm_bf_mean_cycle", "Mean backfill cycle time"},
     [](const DiagSnapshot& d) {
       return Mean(S(d).bf_cycle_sum, S(d).bf_cycle_counter);
     }},
    {{"slurm_bf_mean_table_sz", "Mean backfill table size"},
     [](const DiagSnapshot& d) {
       return Mean(S(d).bf_table_size_sum, S(d).bf_cycle_counter);
     }},
    {{"slurm_bf_queue_len_mean", "Mean backfill queue length"},
     [](const DiagSnapshot& d) {
       return Mean(S(d).bf_queue_len_sum, S(d).bf_cycle_counter);
     }},
    {{"slurm_bf_try_depth_mean", "Mean depth attempts in backfill"},
     [](const DiagSnapshot& d) {
       return Mean(S(d).bf_depth_try_sum, S(d).bf_cycle_counter);
     }},
    {{"slurm_backfilled_het_jobs", "Heterogeneous components backfilled", k32,
      kNoUnit, kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_backfilled_het_jobs; }},
    {{"slurm_backfilled_jobs", "Total backfilled jobs since reset", k32,
      kNoUnit, kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_backfilled_jobs; }},
    {{"slurm_bf_active", "Backfill scheduler active jobs"},
     [](const DiagSnapshot& d) { return S(d).bf_active; }},
    {{"slurm_bf_cycle_cnt", "Backfill cycle count", k32, kNoUnit, kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_cycle_counter; }},
    {{"slurm_bf_cycle_last", "Last backfill cycle time"},
     [](const DiagSnapshot& d) { return S(d).bf_cycle_last; }},
    {{"slurm_bf_cycle_max", "Max backfill cycle time"},
     [](const DiagSnapshot& d) { return S(d).bf_cycle_max; }},
    {{"slurm_bf_cycle_tot", "Sum of backfill cycle times", k64, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_cycle_sum; }},
    {{"slurm_bf_depth_tot", "Sum of backfill job depths", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_depth_sum; }},
    {{"slurm_bf_depth_try_tot", "Sum of backfill depth attempts", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_depth_try_sum; }},
    {{"slurm_bf_last_depth", "Last backfill depth"},
     [](const DiagSnapshot& d) { return S(d).bf_last_depth; }},
    {{"slurm_bf_last_depth_try", "Last backfill depth attempts"},
     [](const DiagSnapshot& d) { return S(d).bf_last_depth_try; }},
    {{"slurm_bf_queue_len", "Backfill queue length"},
     [](const DiagSnapshot& d) { return S(d).bf_queue_len; }},
    {{"slurm_bf_queue_len_tot", "Sum of backfill queue lengths", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_queue_len_sum; }},
    {{"slurm_bf_table_size", "Backfill table size"},
     [](const DiagSnapshot& d) { return S(d).bf_table_size; }},
    {{"slurm_bf_table_size_tot", "Sum of backfill table sizes", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_table_size_sum; }},
    {{"slurm_bf_when_last_cycle", "Timestamp of last backfill cycle", k64},
     [](const DiagSnapshot& d) { return Time(S(d).bf_when_last_cycle); }},
    {{"slurm_sdiag_jobs_canceled", "Jobs canceled since reset", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).jobs_canceled; }},
    {{"slurm_sdiag_jobs_completed", "Jobs completed since reset", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).jobs_completed; }},
    {{"slurm_sdiag_jobs_failed", "Jobs failed since reset", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).jobs_failed; }},
    // Refreshed by slurmctld's main loop at most every 30 s, with
    // job_states_ts; 0 until the first refresh.
    {{"slurm_sdiag_jobs_pending", "Jobs pending at timestamp"},
     [](const DiagSnapshot& d) { return S(d).jobs_pending; }},
    {{"slurm_sdiag_jobs_running", "Jobs running at timestamp"},
     [](const DiagSnapshot& d) { return S(d).jobs_running; }},
    {{"slurm_sdiag_jobs_started", "Jobs started since reset", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).jobs_started; }},
    {{"slurm_sdiag_jobs_submitted", "Jobs submitted since reset", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).jobs_submitted; }},
    {{"slurm_sdiag_job_states_ts", "Job states timestamp", k64},
     [](const DiagSnapshot& d) { return Time(S(d).job_states_ts); }},
    // Cleared by every statistics reset, not by every backfill cycle.
    {{"slurm_last_backfilled_jobs", "Backfilled jobs since last cycle", k32,
      kNoUnit, kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_last_backfilled_jobs; }},
    {{"slurm_sdiag_latency", "Measurement latency"},
     [](const DiagSnapshot& d) { return S(d).latency; }},
    {{"slurm_schedule_cycle_cnt", "Scheduling cycle count", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).schedule_cycle_counter; }},
    {{"slurm_schedule_cycle_depth", "Processed jobs depth total", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).schedule_cycle_depth; }},
    {{"slurm_schedule_cycle_last", "Last scheduling cycle time"},
     [](const DiagSnapshot& d) { return S(d).schedule_cycle_last; }},
    {{"slurm_schedule_cycle_max", "Max scheduling cycle time"},
     [](const DiagSnapshot& d) { return S(d).schedule_cycle_max; }},
    // A uint64 of microseconds printed as UINT32 by Slurm: it wraps after
    // about 71.6 minutes of scheduling since the last reset.
    {{"slurm_schedule_cycle_tot", "Sum of scheduling cycle times", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).schedule_cycle_sum; }},
    {{"slurm_schedule_queue_len", "Jobs pending queue length"},
     [](const DiagSnapshot& d) { return S(d).schedule_queue_len; }},
    {{"slurm_sched_exit_end", "End of job queue", k32, kNoUnit, kCounter},
     [](const DiagSnapshot& d) { return S(d).schedule_exit.end_job_queue; }},
    {{"slurm_sched_exit_max_depth", "Hit default_queue_depth", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).schedule_exit.default_queue_depth; }},
    {{"slurm_sched_exit_max_job_start", "Hit sched_max_job_start", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) {
       return S(d).schedule_exit.max_job_start;
     }},
    {{"slurm_sched_exit_lic", "Blocked on licenses", k32, kNoUnit, kCounter},
     [](const DiagSnapshot& d) { return S(d).schedule_exit.licenses; }},
    {{"slurm_sched_exit_rpc_cnt", "Hit max_rpc_cnt", k32, kNoUnit, kCounter},
     [](const DiagSnapshot& d) { return S(d).schedule_exit.max_rpc_cnt; }},
    {{"slurm_sched_exit_timeout", "Timeout (max_sched_time)", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).schedule_exit.max_sched_time; }},
    {{"slurm_bf_exit_end", "End of job queue", k32, kNoUnit, kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_exit.end_job_queue; }},
    {{"slurm_bf_exit_max_job_start", "Hit bf_max_job_start", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_exit.bf_max_job_start; }},
    {{"slurm_bf_exit_max_job_test", "Hit bf_max_job_test", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_exit.bf_max_job_test; }},
    {{"slurm_bf_exit_state_changed", "System state changed", k32, kNoUnit,
      kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_exit.state_changed; }},
    {{"slurm_bf_exit_table_limit", "Hit table size limit (bf_node_space_size)",
      k32, kNoUnit, kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_exit.bf_node_space_size; }},
    {{"slurm_bf_exit_timeout", "Timeout (bf_max_time)", k32, kNoUnit, kCounter},
     [](const DiagSnapshot& d) { return S(d).bf_exit.bf_max_time; }},
    // The full 64-bit sum, so the mean stays right after the printed
    // slurm_schedule_cycle_tot has wrapped.
    {{"slurm_sched_mean_cycle", "Mean scheduling cycle time"},
     [](const DiagSnapshot& d) {
       return Mean(S(d).schedule_cycle_sum, S(d).schedule_cycle_counter);
     }},
    {{"slurm_sched_mean_depth_cycle", "Mean depth of scheduling cycles"},
     [](const DiagSnapshot& d) {
       return Mean(S(d).schedule_cycle_depth, S(d).schedule_cycle_counter);
     }},
    {{"slurm_server_thread_cnt", "Active slurmctld threads count"},
     [](const DiagSnapshot& d) {
       const int64_t n = d.server_thread_count.value_or(0);
       return n > 0 ? static_cast<uint64_t>(n) : 0;
     }},
    {{"slurm_slurmdbd_queue_size", "Queued messages to SlurmDBD"},
     [](const DiagSnapshot& d) { return S(d).dbd_agent_queue_size; }},
    {{"slurm_last_proc_req_start", "Timestamp of last process request start",
      k64},
     [](const DiagSnapshot& d) { return Time(S(d).req_time_start); }},
    // Slurm stamps the scrape; we stamp the collection the body came from.
    {{"slurm_sched_stats_timestamp", "Statistics snapshot timestamp", k64},
     [](const DiagSnapshot& d) { return Time(S(d).time); }},
};

constinit const native::Table<Row> kTable(kRows, "");

}  // namespace

std::span<const FamilyDef* const> NativeSchedulerFamilies() {
  return native::FamiliesOf<kTable>();
}

void AddNativeSchedulerFamilies(MetricSet& set, const DiagSnapshot& diag,
                                const RenderOptions& opts) {
  std::vector<native::Emitter> emit = kTable.Emitters(set, opts.native_values);
  for (size_t i = 0; i < emit.size(); ++i) emit[i].Add(kRows[i].value(diag));
}

}  // namespace sm
