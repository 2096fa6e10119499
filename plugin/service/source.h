// SPDX-License-Identifier: GPL-2.0-or-later
// Where the collector gets controller state from: the Slurm adapter inside
// slurmctld, a fake in tests. Calls come from collector worker threads.
#pragma once

#include <memory>
#include <string>

#include "model/accounting_snapshot.h"
#include "serving/private_data.h"
#include "model/snapshot.h"

namespace sm {

// How long a collection waited for, then held, slurmctld's locks.
struct LockTiming {
  bool used = false;
  double wait_seconds = 0;
  double hold_seconds = 0;
  // The part of hold_seconds spent waiting, with the read locks held, for
  // job_list's own lock. Our walk only reads the list (JobListWalk), so
  // only a thread holding it for writing (slurmctld's list iterators) can
  // keep it waiting, for microseconds per list_next().
  double list_wait_seconds = 0;
};

class Source {
 public:
  virtual ~Source() = default;

  // nullptr and *error set on failure; the collector keeps the last good
  // copy. `timing` is filled when controller locks were taken.
  virtual std::shared_ptr<NodeSnapshot> CollectNodes(LockTiming& timing,
                                                     std::string& error) = 0;
  virtual std::shared_ptr<JobSnapshot> CollectJobs(LockTiming& timing,
                                                   std::string& error) = 0;
  virtual std::shared_ptr<DiagSnapshot> CollectDiag(LockTiming& timing,
                                                    std::string& error) = 0;

  // The accounting side (docs/accounting-families.md). A source without it (no slurmdbd, a
  // test fake) reports empty copies: no series, and no error either.
  virtual std::shared_ptr<ShareSnapshot> CollectShares(LockTiming&,
                                                       std::string&) {
    return std::make_shared<ShareSnapshot>();
  }
  virtual std::shared_ptr<QosSnapshot> CollectQos(LockTiming&, std::string&) {
    return std::make_shared<QosSnapshot>();
  }
  virtual std::shared_ptr<LicenseSnapshot> CollectLicenses(LockTiming&,
                                                           std::string&) {
    return std::make_shared<LicenseSnapshot>();
  }
  virtual std::shared_ptr<ReservationSnapshot> CollectReservations(
      LockTiming&, std::string&) {
    return std::make_shared<ReservationSnapshot>();
  }
  // What slurmctld knows about its link to slurmdbd; takes no lock.
  virtual std::shared_ptr<AccountingStatus> CollectAccountingStatus(
      LockTiming&, std::string&) {
    return std::make_shared<AccountingStatus>();
  }

  // False while this controller must not export anything: before its
  // state is loaded, or while it is a standby backup.
  virtual bool Active() { return true; }

  // What slurm.conf's PrivateData hides from users who are not operators;
  // asked at every tick (22.05 rereads slurm.conf in place on reconfigure).
  virtual PrivateData HiddenFromUsers() { return 0; }

  // From now on no call takes a new lock of slurmctld's or assoc_mgr's:
  // one that would fails (or, for HiddenFromUsers(), answers as last
  // time) instead. Called when the collector stops, perhaps by a thread
  // that holds slurmctld's write locks (docs/architecture.md, "Stopping").
  virtual void StopTakingLocks() {}
};

}  // namespace sm
