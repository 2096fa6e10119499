// SPDX-License-Identifier: GPL-2.0-or-later
// What the accounting-side collections (ControllerSource::CollectShares,
// CollectQos, CollectLicenses, CollectReservations and the node walk's
// GRES) share: assoc_mgr's timed lock and the GRES copy.
#pragma once

#include <memory>
#include <string>

#include "model/accounting_snapshot.h"
#include "adapter.h"
#include "adapter_util.h"

namespace sm::slurm {

// Our turn for assoc_mgr's locks: the associations and QoS copies both
// take its TRES read lock, so they go one at a time (see our_lock_turn).
// Not our_lock_turn itself: slurmctld holds assoc_mgr's write locks across
// slurmdbd RPCs (assoc_mgr_refresh_lists(), when it reconnects to a
// slurmdbd it started without), and a copy waiting for one of those must
// not hold up the node and job copies.
inline std::mutex our_assoc_turn;

// assoc_mgr_lock() for the lifetime of the object, timed like TimedLock and
// taken in our assoc_mgr turn. No slurmctld lock may be held: slurmctld
// takes its own locks before assoc_mgr's.
class TimedAssocLock {
 public:
  TimedAssocLock(assoc_mgr_lock_t locks, LockTiming& timing);
  ~TimedAssocLock();
  TimedAssocLock(const TimedAssocLock&) = delete;
  TimedAssocLock& operator=(const TimedAssocLock&) = delete;

 private:
  std::unique_lock<std::mutex> turn_;
  assoc_mgr_lock_t locks_;
  LockTiming& timing_;
  std::chrono::steady_clock::time_point acquired_;
};

// ---- GRES per node, copied inside the node walk --------------------------

// Under the node read lock: the node's allocated GRES per type, as
// _node_gres_used() counts them (scontrol -d show node's GresUsed),
// appended to `used` (shared by every node of a copy, presized off-lock, so
// that the locked copy does not allocate per node), names stored in `arena`. Returns the configured GRES string
// (node->gres, else its config's), stored in `arena`; off-lock,
// ParseGresCounts() of it gives Node::gres_configured.
std::string_view CopyNodeGres(node_record_t* node, Arena& arena,
                              std::vector<GresCount>& used);

// Under the job read lock: the GPUs of the job's allocated GRES
// (gres_list_alloc), typed and untyped, whether or not gres/gpu is an
// accounted TRES (Job::gpus_alloc). Allocates nothing.
int64_t JobAllocatedGpus(job_record_t* job);

// Off-lock: sinfo's StateLong for a node state word, MIXED when the client
// rewrite says so (lower-case node_state_string(), suffixes included).
std::string_view NodeStatusLong(uint32_t node_state, bool mixed, Arena& arena);

}  // namespace sm::slurm
