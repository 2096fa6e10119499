// SPDX-License-Identifier: GPL-2.0-or-later
// Pending jobs and the CPUs they ask for, by partition, reason and user, as
// SckyzO/slurm_exporter counts them from `squeue -o "%P|%T|%C|%r|%u"`:
// slurm_queue_pending and slurm_cores_pending.
#pragma once

#include <span>

#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm {

struct PendingOptions {
  // QueueUserLabel: with it off, the user label is dropped and the counts
  // are summed over users, as SckyzO's --no-collector.queue.user-label.
  bool user_label = true;
};

// Every family AddPendingJobFamilies() can build.
std::span<const FamilyDef* const> PendingJobFamilies();

void AddPendingJobFamilies(MetricSet& set, const JobSnapshot& jobs,
                           const PendingOptions& options);

}  // namespace sm
