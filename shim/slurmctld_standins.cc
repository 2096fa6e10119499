// SPDX-License-Identifier: GPL-2.0-or-later
// What slurmctld exports to its plugins, defined by the shim.
//
// The plugin is not linked against anything Slurm: it binds these from the
// global scope at dlopen() time, exactly as inside slurmctld, which is
// linked -export-dynamic. The shim is linked -rdynamic for the same reason.
// The records these lists and the node table hold are built by the
// build_*.cc files; the statistics RPC is in statistics_rpc.cc.
#include "slurmctld_standins.h"

#include <pthread.h>

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

}  // extern "C"

namespace shim {

WriteLockAll::WriteLockAll() {
  locks_ = {};
  locks_.conf = WRITE_LOCK;
  locks_.job = WRITE_LOCK;
  locks_.node = WRITE_LOCK;
  locks_.part = WRITE_LOCK;
  locks_.fed = WRITE_LOCK;
#if SM_SLURM_AT_LEAST(26, 5)
  locks_.select_node = WRITE_LOCK;
#endif
  lock_slurmctld(locks_);
}

WriteLockAll::~WriteLockAll() { unlock_slurmctld(locks_); }

}  // namespace shim
