// SPDX-License-Identifier: GPL-2.0-or-later
#include "controller.h"

#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

#include "generate.h"
#include "input.h"
#include "mixed_rule.h"
#include "slurm_api.h"

extern "C" {
#include "src/common/hostlist.h"
#include "src/common/job_resources.h"
}

// ---- What slurmctld exports to its plugins ----------------------------------
//
// The plugin is not linked against anything Slurm: it binds these from the
// global scope at dlopen() time, exactly as inside slurmctld, which is
// linked -export-dynamic. The shim is linked -rdynamic for the same reason.

sm::slurm::SlurmList job_list = nullptr;
sm::slurm::SlurmList part_list = nullptr;
sm::slurm::SlurmList resv_list = nullptr;
// The shim is the primary controller, never shutting down while the
// plugin runs; the plugin reads both before it walks the job list.
#if SM_SLURM_AT_LEAST(23, 2)
bool slurmctld_primary = true;
#else
int slurmctld_primary = 1;
#endif
slurmctld_config_t slurmctld_config;

#if SM_SLURM_AT_LEAST(23, 2)
// Not in node_conf.h, but next_node() stops at it when the table has holes.
extern "C" int last_node_index;
extern "C" int active_node_record_count;
#endif

namespace {

// slurmctld's locks (src/slurmctld/locks.c): one rwlock per data type,
// always taken in the same order and released in reverse. 26.05 adds
// select_node after fed.
enum LockIndex { kConf, kJob, kNode, kPart, kFed, kSelectNode, kLockCount };
pthread_rwlock_t g_locks[kLockCount] = {
    PTHREAD_RWLOCK_INITIALIZER, PTHREAD_RWLOCK_INITIALIZER,
    PTHREAD_RWLOCK_INITIALIZER, PTHREAD_RWLOCK_INITIALIZER,
    PTHREAD_RWLOCK_INITIALIZER, PTHREAD_RWLOCK_INITIALIZER};

void Take(LockIndex i, lock_level_t level) {
  if (level == READ_LOCK) pthread_rwlock_rdlock(&g_locks[i]);
  else if (level == WRITE_LOCK) pthread_rwlock_wrlock(&g_locks[i]);
}

void Release(LockIndex i, lock_level_t level) {
  if (level != NO_LOCK) pthread_rwlock_unlock(&g_locks[i]);
}

// The statistics the RPC answers with; null = "controller unreachable".
std::mutex g_stats_mu;
std::unique_ptr<shim::DiagIn> g_stats;

}  // namespace

extern "C" {

void lock_slurmctld(slurmctld_lock_t l) {
  Take(kConf, l.conf);
  Take(kJob, l.job);
  Take(kNode, l.node);
  Take(kPart, l.part);
  Take(kFed, l.fed);
#if SM_SLURM_AT_LEAST(26, 5)
  Take(kSelectNode, l.select_node);
#endif
}

void unlock_slurmctld(slurmctld_lock_t l) {
#if SM_SLURM_AT_LEAST(26, 5)
  Release(kSelectNode, l.select_node);
#endif
  Release(kFed, l.fed);
  Release(kPart, l.part);
  Release(kNode, l.node);
  Release(kJob, l.job);
  Release(kConf, l.conf);
}

// Interposes libslurmfull's client call: inside slurmctld this is an RPC
// to itself (sdiag's REQUEST_STATS_INFO); here it answers from the dump.
// The response is xmalloc'd field by field, so the plugin's
// slurm_free_stats_response_msg() frees it as it would a real one.
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
  if (!g_stats) {
    errno = SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR;
    return SLURM_ERROR;
  }
  const shim::DiagIn& d = *g_stats;
  auto* r = static_cast<stats_info_response_msg_t*>(xmalloc(sizeof(stats_info_response_msg_t)));
  auto v = [&](const char* key) -> int64_t {
    const auto it = d.values.find(key);
    return it == d.values.end() ? 0 : it->second;
  };
  auto u32 = [&](const char* key) -> uint32_t {
    const int64_t x = v(key);
    return x < 0 ? 0 : x > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(x);
  };
  r->parts_packed = 1;
  r->req_time = v("req_time");
  r->req_time_start = v("req_time_start");
  r->server_thread_count = d.server_thread_count.has()
                               ? static_cast<uint32_t>(d.server_thread_count.value)
                               : 0;
  r->agent_queue_size = u32("agent_queue_size");
  r->agent_count = u32("agent_count");
  r->agent_thread_count = u32("agent_thread_count");
  r->dbd_agent_queue_size = u32("dbd_agent_queue_size");
  r->gettimeofday_latency = u32("gettimeofday_latency");
  r->schedule_cycle_max = u32("schedule_cycle_max");
  r->schedule_cycle_last = u32("schedule_cycle_last");
  r->schedule_cycle_sum = u32("schedule_cycle_sum");
  r->schedule_cycle_counter = u32("schedule_cycle_total");
  r->schedule_cycle_depth = u32("schedule_cycle_depth");
  r->schedule_queue_len = u32("schedule_queue_length");
  r->jobs_submitted = u32("jobs_submitted");
  r->jobs_started = u32("jobs_started");
  r->jobs_completed = u32("jobs_completed");
  r->jobs_canceled = u32("jobs_canceled");
  r->jobs_failed = u32("jobs_failed");
  r->jobs_pending = u32("jobs_pending");
  r->jobs_running = u32("jobs_running");
  r->job_states_ts = v("job_states_ts");
  r->bf_backfilled_jobs = u32("bf_backfilled_jobs");
  r->bf_last_backfilled_jobs = u32("bf_last_backfilled_jobs");
  r->bf_backfilled_het_jobs = u32("bf_backfilled_het_jobs");
  r->bf_cycle_counter = u32("bf_cycle_counter");
  r->bf_cycle_sum = static_cast<uint64_t>(std::max<int64_t>(0, v("bf_cycle_sum")));
  r->bf_cycle_last = u32("bf_cycle_last");
  r->bf_cycle_max = u32("bf_cycle_max");
  r->bf_last_depth = u32("bf_last_depth");
  r->bf_last_depth_try = u32("bf_last_depth_try");
  r->bf_depth_sum = u32("bf_depth_sum");
  r->bf_depth_try_sum = u32("bf_depth_try_sum");
  r->bf_queue_len = u32("bf_queue_len");
  r->bf_queue_len_sum = u32("bf_queue_len_sum");
  r->bf_table_size = u32("bf_table_size");
  r->bf_table_size_sum = u32("bf_table_size_sum");
  r->bf_when_last_cycle = v("bf_when_last_cycle");
  r->bf_active = u32("bf_active");
#if SM_SLURM_AT_LEAST(23, 2)
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
#endif
  const size_t nt = d.rpc_types.size();
  r->rpc_type_size = static_cast<uint32_t>(nt);
  r->rpc_type_id = static_cast<uint16_t*>(xcalloc(nt + 1, sizeof(uint16_t)));
  r->rpc_type_cnt = static_cast<uint32_t*>(xcalloc(nt + 1, sizeof(uint32_t)));
  r->rpc_type_time = static_cast<uint64_t*>(xcalloc(nt + 1, sizeof(uint64_t)));
  for (size_t i = 0; i < nt; ++i) {
    const shim::RpcTypeIn& t = d.rpc_types[i];
    r->rpc_type_id[i] = static_cast<uint16_t>(*t.type_id);
    r->rpc_type_cnt[i] = static_cast<uint32_t>(t.count);
    r->rpc_type_time[i] = static_cast<uint64_t>(t.total_time_us);
  }
  const size_t nu = d.rpc_users.size();
  r->rpc_user_size = static_cast<uint32_t>(nu);
  r->rpc_user_id = static_cast<uint32_t*>(xcalloc(nu + 1, sizeof(uint32_t)));
  r->rpc_user_cnt = static_cast<uint32_t*>(xcalloc(nu + 1, sizeof(uint32_t)));
  r->rpc_user_time = static_cast<uint64_t*>(xcalloc(nu + 1, sizeof(uint64_t)));
  for (size_t i = 0; i < nu; ++i) {
    const shim::RpcUserIn& u = d.rpc_users[i];
    r->rpc_user_id[i] = static_cast<uint32_t>(u.user_id);
    r->rpc_user_cnt[i] = static_cast<uint32_t>(u.count);
    r->rpc_user_time[i] = static_cast<uint64_t>(u.total_time_us);
  }
  *buf = r;
  return SLURM_SUCCESS;
}

}  // extern "C"

namespace shim {
namespace {

using sm::slurm::SlurmList;

// All of slurmctld's locks for writing: how the shim swaps the state.
struct WriteLockAll {
  slurmctld_lock_t l;
  WriteLockAll() {
    l = {};
    l.conf = WRITE_LOCK;
    l.job = WRITE_LOCK;
    l.node = WRITE_LOCK;
    l.part = WRITE_LOCK;
    l.fed = WRITE_LOCK;
#if SM_SLURM_AT_LEAST(26, 5)
    l.select_node = WRITE_LOCK;
#endif
    lock_slurmctld(l);
  }
  ~WriteLockAll() { unlock_slurmctld(l); }
};

char* Dup(const std::string& s) { return s.empty() ? nullptr : xstrdup(s.c_str()); }

[[noreturn]] void Unrepresentable(const std::string& where, const std::string& what) {
  throw InputError(where + ": " + what);
}

template <typename T>
T Fit(const std::string& where, const char* field, int64_t v) {
  if (v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<T>::max())
    Unrepresentable(where, std::string(field) + " " + std::to_string(v) +
                               " does not fit the controller's field (" +
                               (sizeof(T) >= 8 ? std::string("a non-negative number")
                                               : "0.." + std::to_string(std::numeric_limits<T>::max())) +
                               ")");
  return static_cast<T>(v);
}

// ---- Name tables of this release ----------------------------------------------

struct NameBit {
  const char* name;
  uint32_t bit;
};

// Node flag words as data_parser (v0.0.38 state_flags, v0.0.40+ state[])
// prints them, with the short aliases scontrol uses.
const NameBit kNodeFlags[] = {
    {"DRAIN", NODE_STATE_DRAIN},
    {"MAINTENANCE", NODE_STATE_MAINT},
    {"MAINT", NODE_STATE_MAINT},
    {"RESERVED", NODE_STATE_RES},
    {"RES", NODE_STATE_RES},
    {"COMPLETING", NODE_STATE_COMPLETING},
    {"FAIL", NODE_STATE_FAIL},
    {"PLANNED", NODE_STATE_PLANNED},
    {"NOT_RESPONDING", NODE_STATE_NO_RESPOND},
    {"NO_RESPOND", NODE_STATE_NO_RESPOND},
    {"CLOUD", NODE_STATE_CLOUD},
    {"POWER_DOWN", NODE_STATE_POWER_DOWN},
    {"POWER_DRAIN", NODE_STATE_POWER_DRAIN},
    {"POWERED_DOWN", NODE_STATE_POWERED_DOWN},
    {"POWERING_DOWN", NODE_STATE_POWERING_DOWN},
    {"POWERING_UP", NODE_STATE_POWERING_UP},
    {"POWER_UP", NODE_STATE_POWER_UP},
    {"REBOOT_REQUESTED", NODE_STATE_REBOOT_REQUESTED},
    {"REBOOT_ISSUED", NODE_STATE_REBOOT_ISSUED},
    {"REBOOT_CANCELED", NODE_STATE_REBOOT_CANCEL},
    {"REBOOT_CANCEL", NODE_STATE_REBOOT_CANCEL},
    {"INVALID_REG", NODE_STATE_INVALID_REG},
    {"DYNAMIC_FUTURE", NODE_STATE_DYNAMIC_FUTURE},
    {"DYNAMIC_NORM", NODE_STATE_DYNAMIC_NORM},
    {"UNDRAIN", NODE_STATE_UNDRAIN},
    {"RESUME", NODE_RESUME},
#if !SM_SLURM_AT_LEAST(24, 5)
    {"PERFCTRS", NODE_STATE_NET},
#endif
#if SM_SLURM_AT_LEAST(24, 5)
    {"BLOCKED", NODE_STATE_BLOCKED},
#endif
#if SM_SLURM_AT_LEAST(25, 5)
    {"EXTERNAL", NODE_STATE_EXTERNAL},
#endif
};

// Base words in Soperator's priority order (spec 3.2): with several, the
// first present wins, as Soperator's state_base does. MIXED is not a
// stored state: slurmctld keeps ALLOCATED and clients derive MIXED from
// the allocated CPUs, which is what the plugin does too.
const NameBit kNodeBases[] = {
    {"UNKNOWN", NODE_STATE_UNKNOWN}, {"DOWN", NODE_STATE_DOWN},
    {"IDLE", NODE_STATE_IDLE},       {"ALLOCATED", NODE_STATE_ALLOCATED},
    {"ERROR", NODE_STATE_ERROR},     {"MIXED", NODE_STATE_ALLOCATED},
    {"FUTURE", NODE_STATE_FUTURE}};

const NameBit kJobBases[] = {
    {"PENDING", JOB_PENDING},     {"RUNNING", JOB_RUNNING},
    {"SUSPENDED", JOB_SUSPENDED}, {"COMPLETED", JOB_COMPLETE},
    {"CANCELLED", JOB_CANCELLED}, {"FAILED", JOB_FAILED},
    {"TIMEOUT", JOB_TIMEOUT},     {"NODE_FAIL", JOB_NODE_FAIL},
    {"PREEMPTED", JOB_PREEMPTED}, {"BOOT_FAIL", JOB_BOOT_FAIL},
    {"DEADLINE", JOB_DEADLINE},   {"OUT_OF_MEMORY", JOB_OOM}};

// Flag words, and for 22.05's single-word job_state (job_state_string():
// a flag hides the base) the base a job with that word most likely has.
struct JobFlag {
  const char* name;
  uint32_t bit;
  uint32_t likely_base;
};
const JobFlag kJobFlags[] = {
    {"COMPLETING", JOB_COMPLETING, JOB_COMPLETE},
    {"STAGE_OUT", JOB_STAGE_OUT, JOB_COMPLETE},
    {"CONFIGURING", JOB_CONFIGURING, JOB_RUNNING},
    {"RESIZING", JOB_RESIZING, JOB_RUNNING},
    {"REQUEUED", JOB_REQUEUE, JOB_PENDING},
    {"REQUEUE_FED", JOB_REQUEUE_FED, JOB_PENDING},
    {"REQUEUE_HOLD", JOB_REQUEUE_HOLD, JOB_PENDING},
    {"SPECIAL_EXIT", JOB_SPECIAL_EXIT, JOB_PENDING},
    {"STOPPED", JOB_STOPPED, JOB_RUNNING},
    {"REVOKED", JOB_REVOKED, JOB_CANCELLED},
    {"RESV_DEL_HOLD", JOB_RESV_DEL_HOLD, JOB_PENDING},
    {"SIGNALING", JOB_SIGNALING, JOB_RUNNING},
    {"LAUNCH_FAILED", JOB_LAUNCH_FAILED, JOB_FAILED},
    {"RECONFIG_FAIL", JOB_RECONFIG_FAIL, JOB_PENDING},
    {"POWER_UP_NODE", JOB_POWER_UP_NODE, JOB_RUNNING},
#if !SM_SLURM_AT_LEAST(24, 11)
    {"UPDATE_DB", JOB_UPDATE_DB, JOB_RUNNING},
#endif
};

const std::unordered_map<std::string, uint32_t>& ReasonIds() {
  static const auto* table = [] {
    auto* m = new std::unordered_map<std::string, uint32_t>();
    for (uint32_t i = 0; i < 4096; ++i) {
      const char* s = sm::slurm::ReasonString(i);
      if (!s || !strcmp(s, "?") || !strcmp(s, "InvalidReason")) continue;
      m->emplace(s, i);
    }
    return m;
  }();
  return *table;
}

const std::unordered_map<std::string, uint16_t>& RpcIds() {
  static const auto* table = [] {
    auto* m = new std::unordered_map<std::string, uint16_t>();
    for (uint32_t i = 1; i <= UINT16_MAX; ++i) {
      const char* s = rpc_num2string(static_cast<uint16_t>(i));
      // Unknown opcodes come back as their number.
      if (!s || !*s || (s[0] >= '0' && s[0] <= '9')) continue;
      m->emplace(s, static_cast<uint16_t>(i));
    }
    return m;
  }();
  return *table;
}

uint32_t NodeStateOf(const NodeIn& n) {
  uint32_t state = 0;
  const NameBit* base = nullptr;
  std::vector<std::string> unknown;
  for (const std::string& w : n.state) {
    if (w == "INVALID") {
      if (n.state.size() > 1)
        Warn("node-invalid-extra", n.where + ".state: INVALID stands for a state word of NO_VAL; "
             "the other words are dropped");
      return NO_VAL;
    }
  }
  for (const NameBit& b : kNodeBases) {
    for (const std::string& w : n.state) {
      if (w == b.name && !base) base = &b;
    }
  }
  for (const std::string& w : n.state) {
    bool is_base = false;
    for (const NameBit& b : kNodeBases) is_base |= w == b.name;
    if (is_base) {
      if (base && w != base->name)
        Warn("node-several-bases", n.where + ".state: several base states; slurmctld holds one, " +
             std::string(base->name) + " is kept");
      continue;
    }
    bool found = false;
    for (const NameBit& f : kNodeFlags) {
      if (w == f.name) {
        state |= f.bit;
        found = true;
        break;
      }
    }
    if (!found) unknown.push_back(w);
  }
  for (const std::string& w : unknown)
    Warn("node-unknown-flag", n.where + ".state: \"" + w + "\" is not a node state flag of Slurm " +
         SlurmVersionString() + "; ignored");
  if (!base) {
    Warn("node-no-base", n.where + ".state: no base state (IDLE, ALLOCATED, ...); slurmctld "
         "always has one, UNKNOWN is used");
    return state | NODE_STATE_UNKNOWN;
  }
  return state | base->bit;
}

uint32_t JobStateOf(const JobIn& j) {
  uint32_t base = UINT32_MAX;
  uint32_t flags = 0;
  for (size_t i = 0; i < j.state.size(); ++i) {
    const std::string& w = j.state[i];
    bool found = false;
    for (const NameBit& b : kJobBases) {
      if (w == b.name) {
        if (base == UINT32_MAX) base = b.bit;
        else if (base != b.bit)
          Warn("job-several-bases", j.where + ".job_state: several base states; the first is kept");
        found = true;
      }
    }
    for (const JobFlag& f : kJobFlags) {
      if (w == f.name) {
        flags |= f.bit;
        found = true;
        if (i == 0 && j.state.size() == 1) base = f.likely_base;
      }
    }
    if (!found)
      Warn("job-unknown-state", j.where + ".job_state: \"" + w + "\" is not a job state of Slurm " +
           SlurmVersionString() + "; ignored");
  }
  if (base == UINT32_MAX) {
    Warn("job-no-base", j.where + ".job_state: no base state; PENDING is used");
    base = JOB_PENDING;
  } else if (j.state.size() == 1 && flags) {
    Warn("job-flag-hides-base", j.where + ".job_state: \"" + j.state[0] +
         "\" hides the base state (22.05 prints the flag only); assuming " +
         job_state_string(base));
  }
  return base | flags;
}

uint32_t ReasonOf(const JobIn& j) {
  const auto& ids = ReasonIds();
  auto it = ids.find(j.state_reason);
  if (it != ids.end()) return it->second;
  if (j.state_reason.empty()) return WAIT_NO_REASON;
  for (const auto& [name, id] : ids) {
    if (strcasecmp(name.c_str(), j.state_reason.c_str()) == 0) return id;
  }
  Warn("job-unknown-reason", j.where + ".state_reason: \"" + j.state_reason +
       "\" is not a job state reason of Slurm " + SlurmVersionString() +
       "; the plugin will show \"" + sm::slurm::ReasonString(WAIT_NO_REASON) + "\"");
  return WAIT_NO_REASON;
}

// data_parser's minutes: a number, INFINITE, or unset (NO_VAL).
uint32_t Minutes(const Num& n, const std::string& where, const char* field) {
  if (n.kind == Num::kInfinite) return INFINITE;
  if (!n.has()) return n.kind == Num::kUnset ? NO_VAL : INFINITE;
  return Fit<uint32_t>(where, field, n.value);
}

// ---- TRES strings ---------------------------------------------------------------

struct Tres {
  std::optional<int64_t> cpu, mem_mb, gpu;
};

// cpu=4,mem=8G,gres/gpu=2 as slurmctld formats it (TRES_STR_CONVERT_UNITS).
Tres ParseTres(const std::string& s) {
  Tres t;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    const std::string item = s.substr(pos, comma - pos);
    pos = comma + 1;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = item.substr(0, eq);
    std::string val = item.substr(eq + 1);
    if (val.empty()) continue;
    char* end = nullptr;
    const double num = strtod(val.c_str(), &end);
    if (end == val.c_str()) continue;
    if (key == "cpu") t.cpu = static_cast<int64_t>(num);
    else if (key == "gres/gpu") t.gpu = static_cast<int64_t>(num);
    else if (key == "mem") {
      double mb = num;
      switch (*end) {
        case 'K': case 'k': mb = num / 1024; break;
        case 'G': case 'g': mb = num * 1024; break;
        case 'T': case 't': mb = num * 1024 * 1024; break;
        case 'P': case 'p': mb = num * 1024 * 1024 * 1024; break;
        default: break;  // M or none: MiB
      }
      t.mem_mb = static_cast<int64_t>(mb);
    }
  }
  return t;
}

// ---- Freeing (everything below is allocated by this file) ----------------------

void FreeGres(void* x) {
  auto* gs = static_cast<gres_state_t*>(x);
  xfree(gs->gres_name);
  xfree(gs->gres_data);
  xfree(gs);
}

void FreeNode(node_record_t* n) {
  if (!n) return;
  xfree(n->name);
  xfree(n->comm_name);
  xfree(n->node_hostname);
  xfree(n->comment);
  xfree(n->reason);
  xfree(n->tres_fmt_str);
  xfree(n->part_pptr);
#if SM_SLURM_AT_LEAST(23, 2)
  xfree(n->resv_name);
#endif
#if SM_SLURM_AT_LEAST(23, 11)
  xfree(n->instance_id);
#endif
  if (n->gres_list) list_destroy(n->gres_list);
  xfree(n->config_ptr);
  xfree(n);
}

void FreePart(void* x) {
  auto* p = static_cast<part_record_t*>(x);
  xfree(p->name);
  xfree(p->nodes);
  FREE_NULL_BITMAP(p->node_bitmap);
  xfree(p);
}

void FreeResv(void* x) {
  auto* r = static_cast<slurmctld_resv_t*>(x);
  xfree(r->name);
  xfree(r->node_list);
  FREE_NULL_BITMAP(r->node_bitmap);
  xfree(r);
}

void FreeJob(void* x) {
  auto* j = static_cast<job_record_t*>(x);
  xfree(j->name);
  xfree(j->partition);
  xfree(j->account);
  xfree(j->user_name);
  xfree(j->mail_user);
  xfree(j->nodes);
  FREE_NULL_BITMAP(j->node_bitmap);
  FREE_NULL_BITMAP(j->node_bitmap_cg);
  xfree(j->tres_fmt_alloc_str);
  xfree(j->tres_fmt_req_str);
  xfree(j->tres_alloc_cnt);
  if (j->job_resrcs) free_job_resources(&j->job_resrcs);
  if (j->array_recs) {
    FREE_NULL_BITMAP(j->array_recs->task_id_bitmap);
    xfree(j->array_recs->task_id_str);
    xfree(j->array_recs);
  }
  if (j->details) {
    xfree(j->details->work_dir);
    xfree(j->details->std_out);
    xfree(j->details->std_err);
    xfree(j->details);
  }
  xfree(j);
}

void ClearLocked() {
  if (job_list) {
    list_destroy(job_list);
    job_list = nullptr;
  }
  if (part_list) {
    list_destroy(part_list);
    part_list = nullptr;
  }
  if (resv_list) {
    list_destroy(resv_list);
    resv_list = nullptr;
  }
  for (int i = 0; i < node_record_count; ++i) FreeNode(node_record_table_ptr[i]);
  xfree(node_record_table_ptr);
  node_record_count = 0;
#if SM_SLURM_AT_LEAST(23, 2)
  last_node_index = -1;
  active_node_record_count = 0;
#endif
  std::lock_guard lock(g_stats_mu);
  g_stats.reset();
}

// ---- Building -------------------------------------------------------------------

struct NodeBuild {
  const NodeIn* in;
  node_record_t* rec;
  Tres tres, used;
};

bitstr_t* NewNodeBitmap() {
  return bit_alloc(node_record_count > 0 ? node_record_count : 1);
}

// "node[1-3],gpu7" -> node slots; hosts outside the table are reported.
std::vector<int> ResolveHosts(const std::string& list,
                              const std::unordered_map<std::string, int>& index,
                              bool& all_found) {
  std::vector<int> out;
  all_found = true;
  if (list.empty()) return out;
  auto hl = hostlist_create(list.c_str());
  if (!hl) {
    all_found = false;
    return out;
  }
  while (char* host = hostlist_shift(hl)) {
    const auto it = index.find(host);
    if (it == index.end()) all_found = false;
    else out.push_back(it->second);
    free(host);
  }
  hostlist_destroy(hl);
  return out;
}

// Allocated CPUs and memory per node slot of one job, before they become
// its job_resources.
struct JobAlloc {
  job_record_t* job;
  bool running;  // running jobs hold CPUs; suspended ones only memory
  std::map<int, std::pair<int64_t, int64_t>> per_node;  // slot -> cpus, MB
};

}  // namespace

const char* SlurmVersionString() { return SLURM_VERSION_STRING; }

std::vector<std::pair<uint16_t, std::string>> KnownRpcs() {
  std::vector<std::pair<uint16_t, std::string>> out;
  for (const auto& [name, id] : RpcIds()) out.emplace_back(id, name);
  std::sort(out.begin(), out.end());
  return out;
}
uint32_t SlurmVersionNumber() { return SLURM_VERSION_NUMBER; }

void SetupSlurm(const std::string& cluster_name, int verbosity) {
  log_options_t opts = LOG_OPTS_STDERR_ONLY;
  static const log_level_t kLevels[] = {LOG_LEVEL_QUIET, LOG_LEVEL_ERROR,
                                        LOG_LEVEL_INFO, LOG_LEVEL_DEBUG};
  opts.stderr_level = kLevels[std::clamp(verbosity, 0, 3)];
  log_init(const_cast<char*>("soperator-metrics-shim"), opts, SYSLOG_FACILITY_DAEMON, nullptr);
  slurm_conf.cluster_name = xstrdup(cluster_name.empty() ? "shim" : cluster_name.c_str());
#if !SM_SLURM_AT_LEAST(23, 2)
  // 22.05 hides powered-down cloud nodes unless PrivateData=cloud; a dump
  // that shows them came from a controller that showed them.
  slurm_conf.private_data |= PRIVATE_CLOUD_NODES;
#endif
  // Warm the reverse name tables outside any lock.
  (void)ReasonIds();
  (void)RpcIds();
}

int NodeRecordCount() { return node_record_count; }

void ClearClusterState() {
  WriteLockAll lock;
  ClearLocked();
}

void LoadClusterState(const ClusterIn& in) {
  // Names and RPC statistics are translated before the locks are taken;
  // a value found unrepresentable later leaves an empty controller (the
  // CLI stops on the error anyway).
  const std::vector<NodeIn> no_nodes;
  const std::vector<JobIn> no_jobs;
  const std::vector<NodeIn>& nodes = in.nodes ? *in.nodes : no_nodes;
  const std::vector<JobIn>& jobs = in.jobs ? *in.jobs : no_jobs;

  std::vector<uint32_t> node_states(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) node_states[i] = NodeStateOf(nodes[i]);
  std::vector<uint32_t> job_states(jobs.size()), reasons(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    job_states[i] = JobStateOf(jobs[i]);
    reasons[i] = ReasonOf(jobs[i]);
  }
  std::unique_ptr<DiagIn> diag;
  if (in.diag) {
    diag = std::make_unique<DiagIn>(*in.diag);
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
  }

  WriteLockAll lock;
  ClearLocked();

  // Node table, in dump order (slurmctld's table order).
  const int count = static_cast<int>(nodes.size());
  node_record_count = count;
  node_record_table_ptr =
      static_cast<node_record_t**>(xcalloc(count > 0 ? count : 1, sizeof(node_record_t*)));
#if SM_SLURM_AT_LEAST(23, 2)
  last_node_index = count - 1;
  active_node_record_count = count;
#endif
  std::unordered_map<std::string, int> index;
  index.reserve(nodes.size());
  std::vector<NodeBuild> built(nodes.size());
  try {
    for (int i = 0; i < count; ++i) {
      const NodeIn& n = nodes[i];
      NodeBuild& b = built[i];
      b.in = &n;
      b.tres = ParseTres(n.tres);
      b.used = ParseTres(n.tres_used);
      auto* rec = static_cast<node_record_t*>(xmalloc(sizeof(node_record_t)));
      node_record_table_ptr[i] = rec;
      b.rec = rec;
      rec->magic = NODE_MAGIC;
      rec->index = i;
      rec->name = xstrdup(n.name.c_str());
      rec->comm_name = Dup(n.address);
      rec->node_hostname = Dup(n.hostname.empty() ? n.name : n.hostname);
      rec->comment = Dup(n.comment);
      rec->reason = Dup(n.reason);
      rec->reason_time = n.reason.empty() ? 0 : n.reason_time;
      rec->reason_uid = n.reason.empty() ? NO_VAL : 0;
      rec->tres_fmt_str = Dup(n.tres);
#if SM_SLURM_AT_LEAST(23, 11)
      rec->instance_id = Dup(n.instance_id);
#else
      if (!n.instance_id.empty())
        Warn("node-no-instance-id", n.where + ".instance_id: Slurm " + std::string(SLURM_VERSION_STRING) +
             " nodes have no instance_id; the plugin exports \"\"");
#endif
#if SM_SLURM_AT_LEAST(23, 2)
      rec->resv_name = Dup(n.reservation);
#endif
      rec->node_state = node_states[i];
      const int64_t cpus = n.cpus.has() ? n.cpus.value : b.tres.cpu.value_or(0);
      rec->cpus = Fit<uint16_t>(n.where, "cpus", cpus);
      rec->cpus_efctv = Fit<uint16_t>(n.where, "effective_cpus",
                                      n.effective_cpus.or_else(cpus));
      const int64_t mem = n.real_memory.has() ? n.real_memory.value : b.tres.mem_mb.value_or(0);
      rec->real_memory = Fit<uint64_t>(n.where, "real_memory", mem);
      rec->free_mem = n.free_mem.has() ? Fit<uint64_t>(n.where, "free_mem", n.free_mem.value)
                                       : NO_VAL64;
      rec->mem_spec_limit =
          Fit<uint64_t>(n.where, "specialized_memory", n.specialized_memory.or_else(0));
      rec->cores = Fit<uint16_t>(n.where, "cores", n.cores.or_else(1));
      rec->threads = Fit<uint16_t>(n.where, "threads", n.threads.or_else(1));
      rec->tot_sockets = Fit<uint16_t>(n.where, "sockets", n.sockets.or_else(1));
      rec->tot_cores = static_cast<uint16_t>(rec->cores * rec->tot_sockets);
      rec->boards = 1;
      auto* cfg = static_cast<config_record_t*>(xmalloc(sizeof(config_record_t)));
      cfg->magic = CONFIG_MAGIC;
      cfg->cpus = rec->cpus;
      cfg->real_memory = rec->real_memory;
      cfg->cores = rec->cores;
      cfg->threads = rec->threads;
      cfg->tot_sockets = rec->tot_sockets;
      cfg->boards = 1;
      cfg->mem_spec_limit = rec->mem_spec_limit;
      rec->config_ptr = cfg;
      if (b.tres.gpu.value_or(0) > 0 || b.used.gpu.value_or(0) > 0) {
        rec->gres_list = list_create(FreeGres);
        auto* gs = static_cast<gres_state_t*>(xmalloc(sizeof(gres_state_t)));
        gs->plugin_id = gres_build_id(const_cast<char*>("gpu"));
        gs->gres_name = xstrdup("gpu");
        auto* ns = static_cast<gres_node_state_t*>(xmalloc(sizeof(gres_node_state_t)));
        ns->gres_cnt_config = ns->gres_cnt_found = ns->gres_cnt_avail =
            static_cast<uint64_t>(std::max<int64_t>(0, b.tres.gpu.value_or(0)));
        ns->gres_cnt_alloc = static_cast<uint64_t>(std::max<int64_t>(0, b.used.gpu.value_or(0)));
        gs->gres_data = ns;
        list_append(rec->gres_list, gs);
      }
      if (!index.emplace(n.name, i).second)
        Warn("node-duplicate-name", n.where + ".name: \"" + n.name + "\" names two nodes; slurmctld "
             "never has that, the plugin drops the duplicate series");
    }

    // Partitions: the partitions dump's order, then first appearance on
    // nodes, then jobs' partitions.
    std::vector<std::string> order;
    std::unordered_map<std::string, const PartitionIn*> given;
    std::set<std::string> seen;
    auto add_name = [&](const std::string& name) {
      if (!name.empty() && seen.insert(name).second) order.push_back(name);
    };
    if (in.partitions) {
      for (const PartitionIn& p : *in.partitions) {
        given.emplace(p.name, &p);
        add_name(p.name);
      }
    }
    for (const NodeIn& n : nodes)
      for (const std::string& p : n.partitions) add_name(p);
    for (const JobIn& j : jobs) {
      size_t pos = 0;
      while (pos <= j.partition.size()) {
        size_t comma = j.partition.find(',', pos);
        if (comma == std::string::npos) comma = j.partition.size();
        add_name(j.partition.substr(pos, comma - pos));
        pos = comma + 1;
      }
    }
    part_list = list_create(FreePart);
    std::unordered_map<std::string, part_record_t*> parts;
    for (const std::string& name : order) {
      auto* p = static_cast<part_record_t*>(xmalloc(sizeof(part_record_t)));
      p->magic = PART_MAGIC;
      p->name = xstrdup(name.c_str());
      p->node_bitmap = NewNodeBitmap();
      p->state_up = PARTITION_UP;
      p->max_time = INFINITE;
      p->max_nodes = INFINITE;
      p->max_nodes_orig = INFINITE;
      if (const auto it = given.find(name); it != given.end()) {
        p->max_time = Minutes(it->second->max_time, it->second->where, "maximums.time");
        if (it->second->max_nodes.has())
          p->max_nodes = p->max_nodes_orig = Fit<uint32_t>(
              it->second->where, "maximums.nodes", it->second->max_nodes.value);
      }
      list_append(part_list, p);
      parts.emplace(name, p);
    }
    // Membership and the totals _build_part_bitmap() keeps.
    for (int i = 0; i < count; ++i) {
      node_record_t* rec = node_record_table_ptr[i];
      const NodeIn& n = nodes[i];
      rec->part_cnt = 0;
      rec->part_pptr = static_cast<void**>(xcalloc(n.partitions.size() + 1, sizeof(void*)));
      for (const std::string& name : n.partitions) {
        if (name.empty()) continue;  // no partition has an empty name
        part_record_t* p = parts.at(name);
        if (bit_test(p->node_bitmap, i)) continue;
        bit_set(p->node_bitmap, i);
        p->total_nodes++;
        p->total_cpus += rec->cpus;
        p->max_cpu_cnt = std::max<uint32_t>(p->max_cpu_cnt, rec->cpus);
        p->max_core_cnt = std::max<uint32_t>(p->max_core_cnt, rec->tot_cores);
        rec->part_pptr[rec->part_cnt++] = p;
      }
    }
    for (auto& [name, p] : parts) p->nodes = bitmap2node_name(p->node_bitmap);

    // Reservations: slurmctld 23.02+ keeps the active one's name on the
    // node; 22.05 only in resv_list, where the plugin looks it up.
    resv_list = list_create(FreeResv);
    {
      std::map<std::string, std::vector<int>> resv;
      for (int i = 0; i < count; ++i)
        if (!nodes[i].reservation.empty()) resv[nodes[i].reservation].push_back(i);
      for (const auto& [name, slots] : resv) {
        auto* r = static_cast<slurmctld_resv_t*>(xmalloc(sizeof(slurmctld_resv_t)));
        r->magic = 0x3b82;  // RESV_MAGIC, private to reservation.c
        r->name = xstrdup(name.c_str());
        r->node_bitmap = NewNodeBitmap();
        for (int s : slots) bit_set(r->node_bitmap, s);
        r->node_list = bitmap2node_name(r->node_bitmap);
        r->node_cnt = static_cast<uint32_t>(slots.size());
        // Active for as long as anyone replays it.
        r->start_time = 0;
        r->end_time = std::numeric_limits<time_t>::max();
        list_append(resv_list, r);
      }
    }

    // Jobs.
    job_list = list_create(FreeJob);
    std::vector<JobAlloc> allocs;
    for (size_t k = 0; k < jobs.size(); ++k) {
      const JobIn& in_job = jobs[k];
      const std::string& w = in_job.where;
      auto* job = static_cast<job_record_t*>(xmalloc(sizeof(job_record_t)));
      auto* d = static_cast<decltype(job->details)>(xmalloc(sizeof(*job->details)));
      job->details = d;
      list_append(job_list, job);
      job->magic = JOB_MAGIC;
      d->magic = DETAILS_MAGIC;
      job->job_id = static_cast<uint32_t>(in_job.job_id);
      job->name = Dup(in_job.name);
      job->job_state = job_states[k];
      job->state_reason = reasons[k];
      job->partition = Dup(in_job.partition);
      {
        std::string first = in_job.partition.substr(0, in_job.partition.find(','));
        const auto it = parts.find(first);
        job->part_ptr = it == parts.end() ? nullptr : it->second;
      }
      job->account = Dup(in_job.account);
      job->user_id = Fit<uint32_t>(w, "user_id", in_job.user_id);
      job->group_id = job->user_id;
      if (in_job.user_name && !in_job.user_name->empty())
        job->user_name = xstrdup(in_job.user_name->c_str());
      // Slurm sets mail_user to the user name at submission when none is
      // given; 22.05's JSON does not print it.
      if (in_job.mail_user) job->mail_user = Dup(*in_job.mail_user);
      else if (in_job.user_name) job->mail_user = Dup(*in_job.user_name);
      job->batch_flag = in_job.batch ? 1 : 0;
      d->work_dir = Dup(in_job.work_dir);
      d->std_out = Dup(in_job.std_out);
      d->std_err = Dup(in_job.std_err);
      d->submit_time = in_job.submit_time.or_else(0);
      job->priority = in_job.priority.has() ? Fit<uint32_t>(w, "priority", in_job.priority.value)
                                            : 1;
      job->time_limit = Minutes(in_job.time_limit, w, "time_limit");

      const uint32_t cpus = Fit<uint32_t>(w, "cpus", in_job.cpus.or_else(0));
      job->total_cpus = cpus;
      job->cpu_cnt = cpus;
      d->min_cpus = cpus;
      d->max_cpus = NO_VAL;
      const uint32_t node_count = Fit<uint32_t>(w, "node_count", in_job.node_count.or_else(0));
      job->total_nodes = node_count;
      job->node_cnt = node_count;
      d->min_nodes = node_count;
      d->max_nodes = in_job.max_nodes.has() ? Fit<uint32_t>(w, "max_nodes", in_job.max_nodes.value)
                                           : 0;
      if (in_job.memory_per_cpu.has())
        d->pn_min_memory =
            Fit<uint64_t>(w, "memory_per_cpu", in_job.memory_per_cpu.value) | MEM_PER_CPU;
      else if (in_job.memory_per_node.has())
        d->pn_min_memory = Fit<uint64_t>(w, "memory_per_node", in_job.memory_per_node.value);
      if (d->pn_min_memory != 0 && (d->pn_min_memory & ~MEM_PER_CPU) >= MEM_PER_CPU)
        Unrepresentable(w, "memory_per_node/memory_per_cpu too large");

      // Times as pack_job() shows them back: started jobs carry their own,
      // a pending job's estimate goes through the same max() again.
      job->start_time = in_job.start_time.or_else(0);
      job->end_time = in_job.end_time.or_else(0);

      // Arrays: a pending meta record shows its remaining tasks.
      job->array_job_id = Fit<uint32_t>(w, "array_job_id", in_job.array_job_id.or_else(0));
      job->array_task_id = in_job.array_task_id.has()
                               ? Fit<uint32_t>(w, "array_task_id", in_job.array_task_id.value)
                               : NO_VAL;
      if (job->array_task_id == NO_VAL && !in_job.array_task_string.empty()) {
        std::string spec = in_job.array_task_string;
        uint32_t max_run = 0;
        if (const size_t pct = spec.find('%'); pct != std::string::npos) {
          max_run = static_cast<uint32_t>(strtoul(spec.c_str() + pct + 1, nullptr, 10));
          spec.resize(pct);
        }
        if (in_job.array_max_tasks > 0) max_run = static_cast<uint32_t>(in_job.array_max_tasks);
        bitstr_t* tasks = bit_alloc(1);
        // "1-5,7,10-20:2"
        size_t pos = 0;
        bool ok = true;
        while (ok && pos < spec.size()) {
          size_t comma = spec.find(',', pos);
          if (comma == std::string::npos) comma = spec.size();
          const std::string item = spec.substr(pos, comma - pos);
          pos = comma + 1;
          unsigned long a = 0, b = 0, step = 1;
          char* e = nullptr;
          a = strtoul(item.c_str(), &e, 10);
          if (e == item.c_str()) { ok = false; break; }
          b = a;
          if (*e == '-') {
            const char* s2 = e + 1;
            b = strtoul(s2, &e, 10);
            if (e == s2) { ok = false; break; }
            if (*e == ':') {
              const char* s3 = e + 1;
              step = strtoul(s3, &e, 10);
              if (e == s3 || step == 0) { ok = false; break; }
            }
          }
          if (*e != '\0' || b < a || b > 4000000) { ok = false; break; }
          if (static_cast<bitoff_t>(b) >= bit_size(tasks)) tasks = bit_realloc(tasks, b + 1);
          for (unsigned long t = a; t <= b; t += step) bit_set(tasks, t);
        }
        if (!ok) {
          FREE_NULL_BITMAP(tasks);
          Unrepresentable(w + ".array_task_string",
                          "\"" + in_job.array_task_string +
                              "\" is not a task list such as 1-5,7,10-20:2%4");
        }
        job->array_recs = static_cast<job_array_struct_t*>(xmalloc(sizeof(job_array_struct_t)));
        job->array_recs->task_id_bitmap = tasks;
        job->array_recs->task_cnt = static_cast<uint32_t>(bit_set_count(tasks));
        job->array_recs->max_run_tasks = max_run;
      }

      // Node list: slurmctld keeps no string for jobs without nodes.
      std::string nodes_str = in_job.nodes;
      {
        const size_t a = nodes_str.find_first_not_of(' ');
        const size_t b = nodes_str.find_last_not_of(' ');
        const std::string trimmed = a == std::string::npos ? "" : nodes_str.substr(a, b - a + 1);
        if (trimmed.empty() || trimmed == "None assigned" || trimmed == "(null)") nodes_str.clear();
      }
      job->nodes = Dup(nodes_str);
      bool all_found = true;
      const std::vector<int> slots = ResolveHosts(nodes_str, index, all_found);
      if (!slots.empty()) {
        job->node_bitmap = NewNodeBitmap();
        for (int s : slots) bit_set(job->node_bitmap, s);
      }
      // A completing job shows the nodes it still completes on
      // (bitmap2node_name(node_bitmap_cg)); keep the string when the hosts
      // are not all in the table.
      if ((job->job_state & JOB_COMPLETING) && job->node_bitmap && all_found)
        job->node_bitmap_cg = bit_copy(job->node_bitmap);

      job->tres_fmt_alloc_str = Dup(in_job.tres_alloc);
      job->tres_fmt_req_str = Dup(in_job.tres_req);
      if (!in_job.tres_alloc.empty()) {
        const Tres t = ParseTres(in_job.tres_alloc);
        job->tres_alloc_cnt =
            static_cast<uint64_t*>(xcalloc(TRES_ARRAY_TOTAL_CNT, sizeof(uint64_t)));
        job->tres_alloc_cnt[TRES_ARRAY_CPU] = static_cast<uint64_t>(std::max<int64_t>(0, t.cpu.value_or(0)));
        job->tres_alloc_cnt[TRES_ARRAY_MEM] = static_cast<uint64_t>(std::max<int64_t>(0, t.mem_mb.value_or(0)));
        job->tres_alloc_cnt[TRES_ARRAY_NODE] = node_count;
      }

      // Allocation, per node, as job_resources hold it.
      const uint32_t base = job->job_state & JOB_STATE_BASE;
      if (base == JOB_RUNNING || base == JOB_SUSPENDED) {
        JobAlloc a;
        a.job = job;
        a.running = base == JOB_RUNNING;
        if (in_job.alloc) {
          for (const AllocIn& x : *in_job.alloc) {
            const auto it = index.find(x.node);
            if (it == index.end()) continue;
            auto& e = a.per_node[it->second];
            e.first += x.cpus;
            e.second += x.memory_mb;
          }
        } else if (!slots.empty()) {
          // No job_resources: spread the job's CPUs and memory evenly.
          const Tres t = ParseTres(in_job.tres_alloc);
          const int64_t c = t.cpu.value_or(cpus);
          const int64_t m = t.mem_mb.value_or(0);
          const int64_t ns = static_cast<int64_t>(slots.size());
          for (size_t s = 0; s < slots.size(); ++s) {
            auto& e = a.per_node[slots[s]];
            e.first += c / ns + (static_cast<int64_t>(s) < c % ns ? 1 : 0);
            e.second += m / ns + (static_cast<int64_t>(s) < m % ns ? 1 : 0);
          }
        }
        allocs.push_back(std::move(a));
      }
    }

    // The plugin sums running jobs' job_resources per node, as cons_tres
    // does, rather than asking select (which needs the node write lock).
    // Make those sums equal what the node dump says is allocated: nodes
    // are the authority, jobs carry it.
    std::vector<int64_t> sum_cpus(count, 0), sum_mem(count, 0);
    for (const JobAlloc& a : allocs)
      for (const auto& [slot, cm] : a.per_node) {
        if (a.running) sum_cpus[slot] += cm.first;
        sum_mem[slot] += cm.second;
      }
    auto carrier = [&](int slot, bool need_running) -> JobAlloc* {
      JobAlloc* any = nullptr;
      for (JobAlloc& a : allocs) {
        if (need_running && !a.running) continue;
        if (a.per_node.count(slot)) return &a;
        if (!any) any = &a;
      }
      return any;
    };
    for (int i = 0; i < count; ++i) {
      const NodeIn& n = nodes[i];
      const int64_t want_cpus = n.alloc_cpus.has() ? n.alloc_cpus.value : sum_cpus[i];
      const int64_t want_mem = n.alloc_memory.has() ? n.alloc_memory.value : sum_mem[i];
      if (want_cpus != sum_cpus[i]) {
        // Zero the node on every job, then give the whole amount to one.
        for (JobAlloc& a : allocs)
          if (a.running)
            if (auto it = a.per_node.find(i); it != a.per_node.end()) it->second.first = 0;
        if (want_cpus > 0) {
          if (JobAlloc* c = carrier(i, true)) c->per_node[i].first = want_cpus;
          else
            Warn("node-alloc-cpus-unheld", n.where + ".alloc_cpus: " + std::to_string(want_cpus) +
                 " allocated CPUs, but no running job in the input can hold "
                 "them; the plugin derives allocations from running jobs and "
                 "will show 0");
        }
      }
      if (want_mem != sum_mem[i]) {
        for (JobAlloc& a : allocs)
          if (auto it = a.per_node.find(i); it != a.per_node.end()) it->second.second = 0;
        if (want_mem > 0) {
          if (JobAlloc* c = carrier(i, false)) c->per_node[i].second = want_mem;
          else
            Warn("node-alloc-mem-unheld", n.where + ".alloc_memory: " + std::to_string(want_mem) +
                 " MB allocated, but no running or suspended job in the input "
                 "can hold it; the plugin will show 0");
        }
      }
    }
    for (JobAlloc& a : allocs) {
      if (a.per_node.empty()) continue;
      job_resources_t* r = create_job_resources();
      r->nhosts = static_cast<uint32_t>(a.per_node.size());
      r->node_bitmap = NewNodeBitmap();
      r->cpus = static_cast<uint16_t*>(xcalloc(r->nhosts, sizeof(uint16_t)));
      r->memory_allocated = static_cast<uint64_t*>(xcalloc(r->nhosts, sizeof(uint64_t)));
      uint32_t j = 0;
      int64_t total = 0;
      for (const auto& [slot, cm] : a.per_node) {  // ascending slot: bitmap order
        bit_set(r->node_bitmap, slot);
        r->cpus[j] = static_cast<uint16_t>(std::clamp<int64_t>(cm.first, 0, UINT16_MAX));
        r->memory_allocated[j] = static_cast<uint64_t>(std::max<int64_t>(0, cm.second));
        total += r->cpus[j];
        ++j;
      }
      r->ncpus = static_cast<uint32_t>(total);
      r->nodes = bitmap2node_name(r->node_bitmap);
      a.job->job_resrcs = r;
    }

    // What the plugin will derive for MIXED, compared with the dump.
    std::vector<int64_t> final_cpus(count, 0);
    for (const JobAlloc& a : allocs)
      if (a.running)
        for (const auto& [slot, cm] : a.per_node) final_cpus[slot] += cm.first;
    for (int i = 0; i < count; ++i) {
      const NodeIn& n = nodes[i];
      if (node_states[i] == NO_VAL) continue;
      const node_record_t* rec = node_record_table_ptr[i];
      const int64_t alloc = std::min<int64_t>(final_cpus[i], rec->cpus_efctv);
      const bool mixed = sm::slurm::ClientShowsMixed(
          rec->cpus_efctv, static_cast<uint16_t>(alloc),
          sm::slurm::HasAllocTres(alloc, n.alloc_memory.or_else(0),
                                  built[i].used.gpu.value_or(0)));
      const bool said_mixed =
          std::find(n.state.begin(), n.state.end(), "MIXED") != n.state.end();
      if (said_mixed != mixed)
        Warn("node-mixed-differs", n.where + ".state: the dump says " + (said_mixed ? "MIXED" : "not MIXED") +
             " but with " + std::to_string(alloc) + " of " + std::to_string(rec->cpus_efctv) +
             " CPUs allocated the plugin derives " + (mixed ? "MIXED" : "not MIXED"));
    }
  } catch (...) {
    ClearLocked();
    throw;
  }

  std::lock_guard stats_lock(g_stats_mu);
  g_stats = std::move(diag);
}

}  // namespace shim
