// SPDX-License-Identifier: GPL-2.0-or-later
// GPUs per job: slurm_job_gpus, in the style of Soperator's slurm_job_cpus
// (docs/metrics.md "GPUs per job"). Ours: Soperator no longer exports
// GPUs per job.
#pragma once

#include <span>

#include "exposition/exposition.h"
#include "model/snapshot.h"

namespace sm {

std::span<const FamilyDef* const> JobGpuFamilies();

// One series per job record holding GPUs (Job::gpus_alloc > 0).
void AddJobGpuFamilies(MetricSet& set, const JobSnapshot& jobs);

}  // namespace sm
