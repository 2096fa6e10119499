// SPDX-License-Identifier: GPL-2.0-or-later
// The Slurm adapter: copies slurmctld's node, job and sdiag state into core
// snapshots. Each collection takes the read locks it needs in one call,
// copies raw fields into an arena, releases, and only then does the slow
// parts (name lookups, string formatting, derived states).
#pragma once

#include "source.h"
#include "user_names.h"

namespace sm::slurm {

class ControllerSource : public Source {
 public:
  std::shared_ptr<NodeSnapshot> CollectNodes(LockTiming& timing,
                                             std::string& error) override;
  std::shared_ptr<JobSnapshot> CollectJobs(LockTiming& timing,
                                           std::string& error) override;
  std::shared_ptr<DiagSnapshot> CollectDiag(LockTiming& timing,
                                            std::string& error) override;
  // False before the node table is loaded and while this slurmctld is a
  // standby backup (25.11+); see InStandby() in slurm_api.h.
  bool Active() override;

 private:
  UserNames users_;
};

}  // namespace sm::slurm
