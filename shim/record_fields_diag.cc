// SPDX-License-Identifier: GPL-2.0-or-later
// sdiag's RPC entries and the values the shim names (record_fields.h).
#include "record_fields.h"

namespace shim::fields {

const std::vector<Field<RpcTypeIn>>& RpcTypeFields() {
  static const std::vector<Field<RpcTypeIn>> f = {
      Plain("type_id", &RpcTypeIn::type_id),
      Row("message_type", &RpcTypeIn::message_type)
          .Required("the RPC name (a string such as REQUEST_PING)"),
      Plain("count", &RpcTypeIn::count),
      Plain("total_time", &RpcTypeIn::total_time_us),
  };
  return f;
}

const std::vector<Field<RpcUserIn>>& RpcUserFields() {
  static const std::vector<Field<RpcUserIn>> f = {
      Plain("user_id", &RpcUserIn::user_id).Required("the uid (an integer)"),
      Row("user", &RpcUserIn::user),
      Plain("count", &RpcUserIn::count),
      Plain("total_time", &RpcUserIn::total_time_us),
  };
  return f;
}

const std::vector<DiagValue>& DiagValues() {
  using enum SdiagSection;
  static const std::vector<DiagValue> v = {
      // sdiag text: "sdiag output at ... (N)" and "Data since ... (N)".
      {"req_time", kNone, nullptr, Form::kStruct},
      {"req_time_start", kNone, nullptr, Form::kStruct},
      {"job_states_ts", kNone, nullptr, Form::kStruct},
      {"bf_when_last_cycle", kNone, nullptr, Form::kStruct},
      {"server_thread_count", kGeneral, "Server thread count"},
      {"agent_queue_size", kGeneral, "Agent queue size"},
      {"agent_count", kGeneral, "Agent count"},
      {"agent_thread_count", kGeneral, "Agent thread count"},
      {"dbd_agent_queue_size", kGeneral, "DBD Agent queue size"},
      {"jobs_submitted", kGeneral, "Jobs submitted"},
      {"jobs_started", kGeneral, "Jobs started"},
      {"jobs_completed", kGeneral, "Jobs completed"},
      {"jobs_canceled", kGeneral, "Jobs canceled"},
      {"jobs_failed", kGeneral, "Jobs failed"},
      {"jobs_pending", kGeneral, "Jobs pending"},
      {"jobs_running", kGeneral, "Jobs running"},
      {"schedule_cycle_last", kMain, "Last cycle"},
      {"schedule_cycle_max", kMain, "Max cycle"},
      {"schedule_cycle_total", kMain, "Total cycles"},
      {"schedule_queue_length", kMain, "Last queue length"},
      {"bf_backfilled_jobs", kBackfill, "Total backfilled jobs (since last slurm start)"},
      {"bf_last_backfilled_jobs", kBackfill,
       "Total backfilled jobs (since last stats cycle start)"},
      {"bf_backfilled_het_jobs", kBackfill, "Total backfilled heterogeneous job components"},
      {"bf_cycle_counter", kBackfill, "Total cycles"},
      {"bf_cycle_last", kBackfill, "Last cycle"},
      {"bf_cycle_max", kBackfill, "Max cycle"},
      {"bf_last_depth", kBackfill, "Last depth cycle"},
      {"bf_last_depth_try", kBackfill, "Last depth cycle (try sched)"},
      {"bf_queue_len", kBackfill, "Last queue length"},
      {"bf_table_size", kBackfill, "Last table size"},
  };
  return v;
}

}  // namespace shim::fields
