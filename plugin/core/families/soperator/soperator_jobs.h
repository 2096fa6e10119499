// SPDX-License-Identifier: GPL-2.0-or-later
// Soperator's per-job families (Soperator exporter spec, sections 6.3 and 8):
// slurm_job_info, cpus,
// memory, duration and the job-to-node edges.
#pragma once

#include <cstdint>

#include <span>

#include "exposition/exposition.h"
#include "model/finished_jobs.h"
#include "model/snapshot.h"

namespace sm {

// slurm_job_info, the jobs' CPUs and memory, slurm_node_job: what follows
// from the jobs alone.
std::span<const FamilyDef* const> SoperatorJobFamilies();
// slurm_job_duration_seconds, which also follows the clock: `now` (unix
// seconds) is when durations of unfinished jobs end. Soperator takes it at
// scrape time; we take it when the body is rendered.
std::span<const FamilyDef* const> SoperatorJobDurationFamilies();

// `accounting` (JobSource=accounting; null with JobSource=controller):
// serves the jobs as Soperator's accounting source does, finished ones for
// the lookback even after slurmctld purged them (docs/configuration.md,
// "Finished jobs"). `groups`: the nodes' topology labels for
// slurm_node_job's hosts (none: "", as Soperator without Kubernetes data).
void AddSoperatorJobStateFamilies(MetricSet& set, const JobSnapshot& jobs,
                                  const FinishedJobsView* accounting = nullptr,
                                  const NodeGroupIndex* groups = nullptr);
void AddSoperatorJobDurations(MetricSet& set, const JobSnapshot& jobs,
                              int64_t now,
                              const FinishedJobsView* accounting = nullptr);
// Both (what the tests hold to Soperator's output).
void AddSoperatorJobFamilies(MetricSet& set, const JobSnapshot& jobs,
                             int64_t now,
                             const FinishedJobsView* accounting = nullptr);

std::string_view JobBaseName(JobBase base);

// A job's node list as Soperator reads it: trimmed, and "None assigned" or
// "(null)" (what clients print for a job without nodes) mean none.
std::string_view AssignedNodeList(std::string_view nodes);

}  // namespace sm
