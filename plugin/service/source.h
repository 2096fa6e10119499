// SPDX-License-Identifier: GPL-2.0-or-later
// Where the collector gets controller state from: the Slurm adapter inside
// slurmctld, a fake in tests. Calls come from collector worker threads.
#pragma once

#include <memory>
#include <string>

#include "private_data.h"
#include "snapshot.h"

namespace sm {

// How long a collection waited for, then held, slurmctld's locks.
struct LockTiming {
  bool used = false;
  double wait_seconds = 0;
  double hold_seconds = 0;
  // The part of hold_seconds spent waiting, with the read locks held, for
  // job_list's own lock: slurmctld's native metrics paths walk job_list
  // under it (list_for_each_ro) while our slice's list_next() wants it.
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

  // False while this controller must not export anything: before its
  // state is loaded, or while it is a standby backup.
  virtual bool Active() { return true; }

  // What slurm.conf's PrivateData hides from users who are not operators;
  // asked at every tick (22.05 rereads slurm.conf in place on reconfigure).
  virtual PrivateData HiddenFromUsers() { return 0; }
};

}  // namespace sm
