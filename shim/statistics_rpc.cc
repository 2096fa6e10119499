// SPDX-License-Identifier: GPL-2.0-or-later
// slurm_get_statistics(), the call sdiag and the plugin make
// (REQUEST_STATS_INFO; inside slurmctld an RPC to itself), answered from
// the replayed statistics.
#include "statistics_rpc.h"

#include <cerrno>
#include <mutex>

#include "records.h"
#include "vocabulary.h"

namespace {

// The statistics the RPC answers with; null = "controller unreachable".
std::mutex g_stats_mu;
std::unique_ptr<shim::DiagIn> g_stats;
bool g_unreachable = false;  // FailStatisticsRpc(): fail whatever is published

// Reads the flattened sdiag values (data_parser keys, model.h).
struct Values {
  const shim::DiagIn& d;
  int64_t operator()(const char* key) const {
    const auto it = d.values.find(key);
    return it == d.values.end() ? 0 : it->second;
  }
  // slurmctld's uint32 counters; a larger dump value saturates.
  uint32_t u32(const char* key) const {
    const int64_t x = (*this)(key);
    return x < 0 ? 0 : x > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(x);
  }
};

// The response's uint32 counters by their data_parser key (sdiag --json).
struct Counter {
  const char* key;
  uint32_t stats_info_response_msg_t::*member;
};
using R = stats_info_response_msg_t;
constexpr Counter kCounters[] = {
    {"agent_queue_size", &R::agent_queue_size},
    {"agent_count", &R::agent_count},
    {"agent_thread_count", &R::agent_thread_count},
    {"dbd_agent_queue_size", &R::dbd_agent_queue_size},
    {"gettimeofday_latency", &R::gettimeofday_latency},
    {"schedule_cycle_max", &R::schedule_cycle_max},
    {"schedule_cycle_last", &R::schedule_cycle_last},
    {"schedule_cycle_total", &R::schedule_cycle_counter},
    {"schedule_cycle_depth", &R::schedule_cycle_depth},
    {"schedule_queue_length", &R::schedule_queue_len},
    {"jobs_submitted", &R::jobs_submitted},
    {"jobs_started", &R::jobs_started},
    {"jobs_completed", &R::jobs_completed},
    {"jobs_canceled", &R::jobs_canceled},
    {"jobs_failed", &R::jobs_failed},
    {"jobs_pending", &R::jobs_pending},
    {"jobs_running", &R::jobs_running},
    {"bf_backfilled_jobs", &R::bf_backfilled_jobs},
    {"bf_last_backfilled_jobs", &R::bf_last_backfilled_jobs},
    {"bf_backfilled_het_jobs", &R::bf_backfilled_het_jobs},
    {"bf_cycle_counter", &R::bf_cycle_counter},
    {"bf_cycle_last", &R::bf_cycle_last},
    {"bf_cycle_max", &R::bf_cycle_max},
    {"bf_last_depth", &R::bf_last_depth},
    {"bf_last_depth_try", &R::bf_last_depth_try},
    {"bf_depth_sum", &R::bf_depth_sum},
    {"bf_depth_try_sum", &R::bf_depth_try_sum},
    {"bf_queue_len", &R::bf_queue_len},
    {"bf_queue_len_sum", &R::bf_queue_len_sum},
    {"bf_table_size", &R::bf_table_size},
    {"bf_table_size_sum", &R::bf_table_size_sum},
    {"bf_active", &R::bf_active},
};

void FillCounters(const shim::DiagIn& d, stats_info_response_msg_t* r) {
  const Values v{d};
#if !SM_SLURM_AT_LEAST(25, 11)
  r->parts_packed = 1;  // gone in 25.11 (its wire slot is unpacked and dropped)
#endif
  r->req_time = v("req_time");
  r->req_time_start = v("req_time_start");
  r->server_thread_count = d.server_thread_count.has()
                               ? static_cast<uint32_t>(d.server_thread_count.value)
                               : 0;
  for (const Counter& c : kCounters) r->*c.member = v.u32(c.key);
  // uint64 from 23.02 on, still saturated at 32 bits as before.
  r->schedule_cycle_sum = v.u32("schedule_cycle_sum");
  r->job_states_ts = v("job_states_ts");
  r->bf_cycle_sum = static_cast<uint64_t>(std::max<int64_t>(0, v("bf_cycle_sum")));
  r->bf_when_last_cycle = v("bf_when_last_cycle");
}

// 23.02+ counts why scheduling cycles ended.
void FillExitCounters(const shim::DiagIn& d, stats_info_response_msg_t* r) {
#if SM_SLURM_AT_LEAST(23, 2)
  const Values v{d};
  auto u32 = [&](const char* key) { return v.u32(key); };
  // data_parser's names for the SCHEDULE_EXIT_* and BF_EXIT_* slots
  // (src/plugins/data_parser/v0.0.4x/parsers.c schedule_exit_map[],
  // bf_exit_map[]).
  struct Exit {
    int slot;
    const char* key;
  };
  static const Exit kSchedExit[] = {
      {SCHEDULE_EXIT_END, "schedule_exit.end_job_queue"},
      {SCHEDULE_EXIT_MAX_DEPTH, "schedule_exit.default_queue_depth"},
      {SCHEDULE_EXIT_MAX_JOB_START, "schedule_exit.max_job_start"},
      {SCHEDULE_EXIT_LIC, "schedule_exit.licenses"},
      {SCHEDULE_EXIT_RPC_CNT, "schedule_exit.max_rpc_cnt"},
      {SCHEDULE_EXIT_TIMEOUT, "schedule_exit.max_sched_time"}};
  static const Exit kBfExit[] = {
      {BF_EXIT_END, "bf_exit.end_job_queue"},
      {BF_EXIT_MAX_JOB_START, "bf_exit.bf_max_job_start"},
      {BF_EXIT_MAX_JOB_TEST, "bf_exit.bf_max_job_test"},
      {BF_EXIT_STATE_CHANGED, "bf_exit.state_changed"},
      {BF_EXIT_TABLE_LIMIT, "bf_exit.bf_node_space_size"},
      {BF_EXIT_TIMEOUT, "bf_exit.bf_max_time"}};
  r->schedule_exit_cnt = SCHEDULE_EXIT_COUNT;
  r->schedule_exit = static_cast<uint32_t*>(xcalloc(SCHEDULE_EXIT_COUNT, sizeof(uint32_t)));
  for (const Exit& e : kSchedExit) r->schedule_exit[e.slot] = u32(e.key);
  r->bf_exit_cnt = BF_EXIT_COUNT;
  r->bf_exit = static_cast<uint32_t*>(xcalloc(BF_EXIT_COUNT, sizeof(uint32_t)));
  for (const Exit& e : kBfExit) r->bf_exit[e.slot] = u32(e.key);
#else
  (void)d;
  (void)r;
#endif
}

// One xmalloc'd column of `rows` (one more element than rows, as
// slurmctld allocates them).
template <typename T, typename Row, typename Get>
T* Column(const std::vector<Row>& rows, Get get) {
  auto* column = static_cast<T*>(xcalloc(rows.size() + 1, sizeof(T)));
  for (size_t i = 0; i < rows.size(); ++i) column[i] = static_cast<T>(get(rows[i]));
  return column;
}

// Per RPC type and per user, as the plugin's slurm_free_stats_response_msg()
// expects them: one xmalloc'd array per column.
void FillRpcs(const shim::DiagIn& d, stats_info_response_msg_t* r) {
  r->rpc_type_size = static_cast<uint32_t>(d.rpc_types.size());
  r->rpc_type_id = Column<uint16_t>(d.rpc_types, [](const auto& t) { return *t.type_id; });
  r->rpc_type_cnt = Column<uint32_t>(d.rpc_types, [](const auto& t) { return t.count; });
  r->rpc_type_time = Column<uint64_t>(d.rpc_types, [](const auto& t) { return t.total_time_us; });
  r->rpc_user_size = static_cast<uint32_t>(d.rpc_users.size());
  r->rpc_user_id = Column<uint32_t>(d.rpc_users, [](const auto& u) { return u.user_id; });
  r->rpc_user_cnt = Column<uint32_t>(d.rpc_users, [](const auto& u) { return u.count; });
  r->rpc_user_time = Column<uint64_t>(d.rpc_users, [](const auto& u) { return u.total_time_us; });
}

}  // namespace

extern "C" {

// Interposes libslurmfull's client call. The response is xmalloc'd field by
// field, so the plugin's slurm_free_stats_response_msg() frees it as it
// would a real one.
int slurm_get_statistics(stats_info_response_msg_t** buf,
                         stats_info_request_msg_t* req) {
  if (!buf) {
    errno = EINVAL;
    return SLURM_ERROR;
  }
  *buf = nullptr;
  if (req && req->command_id != STAT_COMMAND_GET) {
    errno = ESLURM_NOT_SUPPORTED;
    return SLURM_ERROR;
  }
  std::lock_guard lock(g_stats_mu);
  if (!g_stats || g_unreachable) {
    errno = SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR;
    return SLURM_ERROR;
  }
  auto* r = static_cast<stats_info_response_msg_t*>(xmalloc(sizeof(stats_info_response_msg_t)));
  FillCounters(*g_stats, r);
  FillExitCounters(*g_stats, r);
  FillRpcs(*g_stats, r);
  *buf = r;
  return SLURM_SUCCESS;
}

}  // extern "C"

namespace shim {

std::unique_ptr<DiagIn> PrepareStatistics(const DiagIn& in) {
  auto diag = std::make_unique<DiagIn>(in);
  const auto& ids = RpcIds();
  for (size_t i = 0; i < diag->rpc_types.size(); ++i) {
    RpcTypeIn& t = diag->rpc_types[i];
    const std::string where = diag->where + ".rpcs_by_message_type[" + std::to_string(i) + "]";
    const auto it = ids.find(t.message_type);
    if (t.type_id && (*t.type_id < 0 || *t.type_id > UINT16_MAX))
      Unrepresentable(where + ".type_id", "not an RPC opcode (0..65535)");
    if (it != ids.end()) {
      if (t.type_id && *t.type_id != it->second)
        Warn("rpc-opcode-differs", where + ": " + t.message_type + " is opcode " + std::to_string(it->second) +
             " in Slurm " + SlurmVersionString() + ", not " + std::to_string(*t.type_id) +
             "; the plugin names opcodes itself");
      t.type_id = it->second;
    } else if (t.type_id) {
      Warn("rpc-unknown-name", where + ": Slurm " + std::string(SlurmVersionString()) + " has no RPC named " +
           t.message_type + "; the plugin will call opcode " + std::to_string(*t.type_id) +
           " \"" + rpc_num2string(static_cast<uint16_t>(*t.type_id)) + "\"");
    } else {
      Unrepresentable(where + ".message_type",
                      "\"" + t.message_type + "\" is not an RPC of Slurm " +
                          SlurmVersionString() + " and no type_id is given");
    }
    if (t.count < 0 || t.count > UINT32_MAX)
      Unrepresentable(where + ".count", "out of range for slurmctld's uint32 counter");
    if (t.total_time_us < 0)
      Unrepresentable(where + ".total_time", "negative");
  }
  for (size_t i = 0; i < diag->rpc_users.size(); ++i) {
    const RpcUserIn& u = diag->rpc_users[i];
    const std::string where = diag->where + ".rpcs_by_user[" + std::to_string(i) + "]";
    Fit<uint32_t>(where, "user_id", u.user_id);
    Fit<uint32_t>(where, "count", u.count);
    if (u.total_time_us < 0) Unrepresentable(where + ".total_time", "negative");
  }
  if (diag->server_thread_count.has())
    Fit<uint32_t>(diag->where, "server_thread_count", diag->server_thread_count.value);
  return diag;
}

void PublishStatistics(std::unique_ptr<DiagIn> diag) {
  std::lock_guard lock(g_stats_mu);
  g_stats = std::move(diag);
}

void FailStatisticsRpc(bool fail) {
  std::lock_guard lock(g_stats_mu);
  g_unreachable = fail;
}

}  // namespace shim
