// SPDX-License-Identifier: GPL-2.0-or-later
// Test-only (--churn-jobs): changes job_list between the slices of a jobs
// collection, as slurmctld's purges and submits do between its unlocks,
// so that tests/shim/job_churn.py can check that the plugin's sliced walk
// (plugin/slurm/job_list_walk.h) copies every surviving job exactly once
// and never touches a freed record.
#pragma once

#include <string>

namespace shim {

// Every change is logged to `log_path`: "- ID" for a job removed, "+ ID"
// for a job added.
void EnableJobChurn(const std::string& log_path);

// Called by the unlock_slurmctld() stand-in after a jobs collection's read
// locks are released; takes the write locks itself.
void ChurnJobsAfterUnlock();

}  // namespace shim
