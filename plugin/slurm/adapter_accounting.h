// SPDX-License-Identifier: GPL-2.0-or-later
// Copies of slurmctld's accounting-side state for the issue 14 families:
// associations (as sshare prints them) and QoS under assoc_mgr's read locks,
// licenses through get_all_license_info(), reservations and node GRES under
// slurmctld's node read lock. Each takes its locks once, copies raw fields,
// releases, and only then formats (see docs/accounting-families.md).
#pragma once

#include <memory>
#include <string>

#include "accounting_snapshot.h"
#include "adapter_util.h"

namespace sm::slurm {

std::shared_ptr<ShareSnapshot> CollectShares(LockTiming& timing,
                                             std::string& error);
std::shared_ptr<QosSnapshot> CollectQos(LockTiming& timing, std::string& error);
std::shared_ptr<LicenseSnapshot> CollectLicenses(LockTiming& timing,
                                                 std::string& error);
// `now`: the time scontrol would compare start and end with (ACTIVE).
std::shared_ptr<ReservationSnapshot> CollectReservations(int64_t now,
                                                         LockTiming& timing,
                                                         std::string& error);

// assoc_mgr_lock() for the lifetime of the object, timed like TimedLock and
// taken in our turn (one controller lock of ours at a time). No slurmctld
// lock may be held: slurmctld takes its own locks before assoc_mgr's.
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
// _node_gres_used() counts them (scontrol -d show node's GresUsed), into
// out.used, names stored in `arena`. Returns the configured GRES string
// (node->gres, else its config's), stored in `arena`, for FinishNodeGres.
std::string_view CopyNodeGres(node_record_t* node, Arena& arena, NodeGres& out);

// Off-lock: out.configured from the string CopyNodeGres returned.
void FinishNodeGres(std::string_view configured, NodeGres& out);

// Off-lock: sinfo's StateLong for a node state word, MIXED when the client
// rewrite says so (lower-case node_state_string(), suffixes included).
std::string_view NodeStatusLong(uint32_t node_state, bool mixed, Arena& arena);

}  // namespace sm::slurm
