// SPDX-License-Identifier: GPL-2.0-or-later
// What slurmctld exports to its plugins, defined by the shim.
//
// The plugin is not linked against anything Slurm: it binds these from the
// global scope at dlopen() time, exactly as inside slurmctld, which is
// linked -export-dynamic. The shim is linked -rdynamic for the same reason.
// The records these lists and the node table hold are built by the
// build_*.cc files (build_licenses.cc also answers get_all_license_info());
// the statistics RPC is in statistics_rpc.cc.
#include "slurmctld_standins.h"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "job_churn.h"

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
#if !SM_SLURM_AT_LEAST(25, 11)
// controller.c's: the shim is the primary (index 0), in control since it
// started (InStandby() reads both up to 25.05).
int backup_inx = 0;
time_t control_time = 1;
#endif

extern "C" {
// controller.c's answer to "in standby?" from 25.11 on (InStandby() in
// slurm_api.h): the shim is the primary, never a backup in standby.
#if SM_SLURM_AT_LEAST(26, 5)
bool slurmctld_listeners_in_standby(void) { return false; }
#elif SM_SLURM_AT_LEAST(25, 11)
bool is_primary(void) { return true; }
#endif
}  // extern "C"

// The plugin reads both only with AccountingStorageType=accounting_storage/
// slurmdbd, which the shim never configures: no slurmdbd, no saved state.
uint16_t running_cache = RUNNING_CACHE_STATE_NOTRUNNING;
void* acct_db_conn = nullptr;

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

std::atomic<int> g_data_waiters{0};
std::atomic<bool> g_fail_nodes{false};
std::atomic<bool> g_fail_jobs{false};
thread_local bool t_holding = false;  // this thread holds HoldCollections
thread_local bool t_failing = false;  // this section was made to fail

// A read of jobs, nodes and partitions is a nodes or jobs collection; the
// jobs collection also reads the federation.
bool IsCollection(const slurmctld_lock_t& l) {
  return l.job == READ_LOCK && l.node == READ_LOCK && l.part == READ_LOCK;
}
bool IsJobsCollection(const slurmctld_lock_t& l) {
  return IsCollection(l) && l.fed == READ_LOCK;
}

// The heap allocations a collector makes while it holds the locks, counted
// when tests/shim/locked_allocs.py preloads its counter
// (tests/shim/locked_allocs.c) and names a file in SM_LOCKED_ALLOCS_OUT:
// one line "nodes N" or "jobs N" per hold. Looked up once, before any
// counting starts (dlsym may allocate).
struct AllocCounter {
  void (*begin)() = nullptr;
  long (*end)() = nullptr;
  const char* out = nullptr;
};

const AllocCounter& Counter() {
  static const AllocCounter c = [] {
    AllocCounter a;
    a.out = getenv("SM_LOCKED_ALLOCS_OUT");
    if (!a.out) return a;
    a.begin = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "sm_locked_allocs_begin"));
    a.end = reinterpret_cast<long (*)()>(dlsym(RTLD_DEFAULT, "sm_locked_allocs_end"));
    if (!a.begin || !a.end) a.begin = nullptr, a.end = nullptr;
    return a;
  }();
  return c;
}

void AppendLockedAllocs(const char* line) {
  static std::mutex mu;
  std::lock_guard lock(mu);
  if (FILE* f = fopen(Counter().out, "a")) {
    fputs(line, f);
    fclose(f);
  }
}

void RecordLockedAllocs(const slurmctld_lock_t& l, long n) {
  char line[64];
  snprintf(line, sizeof line, "%s %ld\n", IsJobsCollection(l) ? "jobs" : "nodes", n);
  AppendLockedAllocs(line);
}

bool CollectionFails(const slurmctld_lock_t& l) {
  if (!IsCollection(l)) return false;
  return IsJobsCollection(l) ? g_fail_jobs.load() : g_fail_nodes.load();
}

}  // namespace

extern "C" {

void lock_slurmctld(slurmctld_lock_t l) {
  const bool data = l.job != NO_LOCK || l.node != NO_LOCK || l.part != NO_LOCK ||
                    l.fed != NO_LOCK;
  if (data) ++g_data_waiters;
  Take(kConf, l.conf);
  Take(kJob, l.job);
  Take(kNode, l.node);
  Take(kPart, l.part);
  Take(kFed, l.fed);
#if SM_SLURM_AT_LEAST(26, 5)
  Take(kSelectNode, l.select_node);
#endif
  if (data) --g_data_waiters;
  if (CollectionFails(l)) {
    t_failing = true;
    slurmctld_config.shutdown_time = 1;
  }
  if (IsCollection(l) && Counter().begin) Counter().begin();
}

// job_mgr.c's looks the id up in job_hash; the shim's lists are small
// enough to search.
job_record_t* find_job_record(uint32_t job_id) {
  if (!job_list) return nullptr;
  return static_cast<job_record_t*>(list_find_first_ro(
      job_list,
      [](void* x, void* key) -> int {
        return static_cast<job_record_t*>(x)->job_id ==
               *static_cast<uint32_t*>(key);
      },
      &job_id));
}

void unlock_slurmctld(slurmctld_lock_t l) {
  if (IsCollection(l) && Counter().end) RecordLockedAllocs(l, Counter().end());
  if (t_failing) {
    t_failing = false;
    slurmctld_config.shutdown_time = 0;
  }
#if SM_SLURM_AT_LEAST(26, 5)
  Release(kSelectNode, l.select_node);
#endif
  Release(kFed, l.fed);
  Release(kPart, l.part);
  Release(kNode, l.node);
  Release(kJob, l.job);
  Release(kConf, l.conf);
  if (IsJobsCollection(l)) shim::ChurnJobsAfterUnlock();
}

}  // extern "C"

namespace shim {

void MarkLockedAllocsStep() {
  if (Counter().begin) AppendLockedAllocs("step\n");
}

namespace {

// Every data lock for writing, and the configuration lock if `conf`.
slurmctld_lock_t WriteLocks(bool conf) {
  slurmctld_lock_t l = {};
  l.conf = conf ? WRITE_LOCK : NO_LOCK;
  l.job = WRITE_LOCK;
  l.node = WRITE_LOCK;
  l.part = WRITE_LOCK;
  l.fed = WRITE_LOCK;
#if SM_SLURM_AT_LEAST(26, 5)
  l.select_node = WRITE_LOCK;
#endif
  return l;
}

}  // namespace

WriteLockAll::WriteLockAll() : locks_(WriteLocks(true)) {
  if (t_holding) return;
  lock_slurmctld(locks_);
  taken_ = true;
}

WriteLockAll::~WriteLockAll() {
  if (taken_) unlock_slurmctld(locks_);
}

HoldCollections::HoldCollections() : locks_(WriteLocks(false)) {
  lock_slurmctld(locks_);
  held_ = t_holding = true;
}

HoldCollections::~HoldCollections() { Release(); }

void HoldCollections::Release() {
  if (!held_) return;
  held_ = t_holding = false;
  unlock_slurmctld(locks_);
}

int DataLockWaiters() { return g_data_waiters.load(); }

void FailCollectors(bool nodes, bool jobs) {
  g_fail_nodes = nodes;
  g_fail_jobs = jobs;
}

}  // namespace shim
