// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/native/native_jobs.h"

#include "families/native/native_common.h"

namespace sm {
namespace {

using native::JobTotals;
using native::Unit;
using native::Width;

using Row = native::MemberRow<JobTotals>;

// State families count records, except pending and hold, which count an
// array's remaining tasks, and slurm_jobs, which counts tasks of every
// record.
const Row kRows[] = {
    {{"slurm_jobs_bootfail", "Number of jobs in BootFail state"},
     &JobTotals::bootfail},
    {{"slurm_jobs_cancelled", "Number of jobs in Cancelled state"},
     &JobTotals::cancelled},
    {{"slurm_jobs_completed", "Number of jobs in Completed state"},
     &JobTotals::completed},
    {{"slurm_jobs_completing", "Number of jobs in Completing state"},
     &JobTotals::completing},
    {{"slurm_jobs_configuring", "Number of jobs in Configuring state"},
     &JobTotals::configuring},
    // Slurm sums each job's total_cpus cut to uint16 in a uint16.
    {{"slurm_jobs_cpus_alloc", "Total number of Cpus allocated by jobs",
      Width::k16},
     &JobTotals::cpus_alloc},
    {{"slurm_jobs_deadline", "Number of jobs in Deadline state"},
     &JobTotals::deadline},
    {{"slurm_jobs_expediting", "Number of jobs in Expediting state"},
     &JobTotals::expediting},
    {{"slurm_jobs_failed", "Number of jobs in Failed state"},
     &JobTotals::failed},
    {{"slurm_jobs_fed_requeued", "Number of jobs requeued in a federation"},
     &JobTotals::fed_requeued},
    {{"slurm_jobs_finished", "Number of finished jobs"}, &JobTotals::finished},
    {{"slurm_jobs_gpus_alloc", "Total number of GPUs allocated by jobs",
      Width::k64},
     &JobTotals::gpus_alloc},
    {{"slurm_jobs_hold", "Number of jobs in Hold state"}, &JobTotals::hold},
    {{"slurm_jobs", "Total number of jobs"}, &JobTotals::tasks},
    // MB in Slurm despite the HELP text.
    {{"slurm_jobs_memory_alloc", "Total memory bytes allocated by jobs",
      Width::k64, Unit::kMiB},
     &JobTotals::memory_alloc_mb},
    {{"slurm_jobs_node_failed", "Number of jobs in Node Failed state"},
     &JobTotals::node_failed},
    {{"slurm_jobs_nodes_alloc", "Total number of nodes allocated by jobs",
      Width::k16},
     &JobTotals::nodes_alloc},
    {{"slurm_jobs_outofmemory", "Number of jobs in Out of Memory state"},
     &JobTotals::oom},
    {{"slurm_jobs_pending", "Number of jobs in Pending state"},
     &JobTotals::pending},
    {{"slurm_jobs_powerup_node", "Number of jobs in PowerUp Node state"},
     &JobTotals::powerup_node},
    {{"slurm_jobs_preempted", "Number of jobs in Preempted state"},
     &JobTotals::preempted},
    {{"slurm_jobs_requeued", "Number of jobs in Requeued state"},
     &JobTotals::requeued},
    {{"slurm_jobs_resizing", "Number of jobs in Resizing state"},
     &JobTotals::resizing},
    {{"slurm_jobs_revoked", "Number of jobs in Rvoked state"},  // sic
     &JobTotals::revoked},
    {{"slurm_jobs_running", "Number of jobs in Running state"},
     &JobTotals::running},
    {{"slurm_jobs_signaling", "Number of jobs being signaled"},
     &JobTotals::signaling},
    {{"slurm_jobs_stageout", "Number of jobs in StageOut state"},
     &JobTotals::stageout},
    {{"slurm_jobs_started", "Number of started jobs"}, &JobTotals::started},
    {{"slurm_jobs_suspended", "Number of jobs in Suspended state"},
     &JobTotals::suspended},
    {{"slurm_jobs_timeout", "Number of jobs in Timeout state"},
     &JobTotals::timeout},
};

constinit const native::Table<Row> kTable(kRows, "");

}  // namespace

std::span<const FamilyDef* const> NativeJobFamilies() {
  return native::FamiliesOf<kTable>();
}

void AddNativeJobFamilies(MetricSet& set, const JobSnapshot& snap,
                          const RenderOptions& opts) {
  JobTotals totals;
  for (const Job& j : snap.jobs) totals.Add(j, opts.native_values);
  totals.Finish(opts.native_values && snap.native_nodes_alloc_per_record);
  std::vector<native::Emitter> emit = kTable.Emitters(set, opts.native_values);
  for (size_t i = 0; i < emit.size(); ++i) emit[i].Add(totals.*kRows[i].value);
}

}  // namespace sm
