// SPDX-License-Identifier: GPL-2.0-or-later
#include "families/native/native_partitions.h"

#include <unordered_map>

#include "families/native/native_common.h"

namespace sm {
namespace {

using native::JobTotals;
using native::NodeCounts;
using native::NodeView;
using native::Spec;
using native::Unit;
using native::Width;

// The partitions themselves: one unlabelled count.
struct CountRow {
  Spec spec;
};
const CountRow kCount[] = {{{"slurm_partitions", "Total number of partitions"}}};

using JobRow = native::MemberRow<JobTotals>;

// Jobs counted under their current part_ptr only: a pending job submitted
// to several partitions appears in exactly one.
const JobRow kJobRows[] = {
    // Not-completed records (pending meta records count once here).
    {{"slurm_partition_jobs", "Number of jobs in this partition"},
     &JobTotals::not_completed},
    {{"slurm_partition_jobs_bootfail", "Number of jobs in BootFail state"},
     &JobTotals::bootfail},
    {{"slurm_partition_jobs_cancelled", "Number of jobs in Cancelled state"},
     &JobTotals::cancelled},
    {{"slurm_partition_jobs_completed", "Number of jobs in Completed state"},
     &JobTotals::completed},
    {{"slurm_partition_jobs_completing", "Number of jobs in Completing state"},
     &JobTotals::completing},
    {{"slurm_partition_jobs_configuring",
      "Number of jobs in Configuring state"},
     &JobTotals::configuring},
    {{"slurm_partition_jobs_cpus_alloc",
      "Total number of Cpus allocated by jobs", Width::k16},
     &JobTotals::cpus_alloc},
    {{"slurm_partition_jobs_gpus_alloc",
      "Total number of GPUs allocated by jobs", Width::k64},
     &JobTotals::gpus_alloc},
    {{"slurm_partition_jobs_deadline", "Number of jobs in Deadline state"},
     &JobTotals::deadline},
    {{"slurm_partition_jobs_expediting", "Number of jobs in Expediting state"},
     &JobTotals::expediting},
    {{"slurm_partition_jobs_failed", "Number of jobs in Failed state"},
     &JobTotals::failed},
    {{"slurm_partition_jobs_fed_requeued",
      "Number of jobs requeued in a federation"},
     &JobTotals::fed_requeued},
    {{"slurm_partition_jobs_finished", "Number of jobs in Finished"},  // sic
     &JobTotals::finished},
    {{"slurm_partition_jobs_hold", "Number of jobs in Hold state"},
     &JobTotals::hold},
    {{"slurm_partition_jobs_max_job_nodes",
      "Max of the max_nodes required of all pending jobs in that partition",
      Width::k16},
     &JobTotals::max_job_nodes},
    {{"slurm_partition_jobs_max_job_nodes_nohold",
      "Max of the max_nodes required of all pending jobs in that partition "
      "excluding Held jobs",
      Width::k16},
     &JobTotals::max_job_nodes_nohold},
    {{"slurm_partition_jobs_memory_alloc",
      "Total memory bytes allocated by jobs", Width::k64, Unit::kMiB},
     &JobTotals::memory_alloc_mb},
    {{"slurm_partition_jobs_min_job_nodes",
      "Max of the min_nodes required of all pending jobs in that partition",
      Width::k16},
     &JobTotals::min_job_nodes},
    {{"slurm_partition_jobs_min_job_nodes_nohold",
      "Max of the min_nodes required of all pending jobs in that partition "
      "excluding Held jobs",
      Width::k16},
     &JobTotals::min_job_nodes_nohold},
    {{"slurm_partition_jobs_node_failed",
      "Number of jobs in Node Failed state"},
     &JobTotals::node_failed},
    {{"slurm_partition_jobs_outofmemory",
      "Number of jobs in Out of Memory state"},
     &JobTotals::oom},
    {{"slurm_partition_jobs_pending", "Number of jobs in Pending state"},
     &JobTotals::pending},
    {{"slurm_partition_jobs_powerup_node",
      "Number of jobs in PowerUp Node state"},
     &JobTotals::powerup_node},
    {{"slurm_partition_jobs_preempted", "Number of jobs in Preempted state"},
     &JobTotals::preempted},
    {{"slurm_partition_jobs_requeued", "Number of jobs in Requeued state"},
     &JobTotals::requeued},
    {{"slurm_partition_jobs_resizing", "Number of jobs in Resizing state"},
     &JobTotals::resizing},
    {{"slurm_partition_jobs_revoked", "Number of revoked jobs"},
     &JobTotals::revoked},
    {{"slurm_partition_jobs_running", "Number of jobs in Running state"},
     &JobTotals::running},
    {{"slurm_partition_jobs_signaling", "Number of jobs in Signaling state"},
     &JobTotals::signaling},
    {{"slurm_partition_jobs_stageout", "Number of jobs in StageOut state"},
     &JobTotals::stageout},
    {{"slurm_partition_jobs_started", "Number of jobs started"},
     &JobTotals::started},
    {{"slurm_partition_jobs_suspended", "Number of jobs in Suspended state"},
     &JobTotals::suspended},
    {{"slurm_partition_jobs_timeout", "Number of jobs in Timeout state"},
     &JobTotals::timeout},
    // Slurm counts any record whose reason has bit 2 set (state_reason &
    // WAIT_PART_NODE_LIMIT); by default we count the reason itself.
    {{"slurm_partition_jobs_wait_part_node_limit",
      "Jobs wait partition node limit"},
     &JobTotals::wait_part_node_limit},
};

using NodeRow = native::MemberRow<NodeCounts>;

// A node in several partitions counts in each. Counts and CPU sums are
// uint16 in Slurm; the mem_* sums are MB and say so nowhere, so they stay
// MB in both modes.
const NodeRow kNodeRows[] = {
    {{"slurm_partition_nodes_alloc", "Nodes allocated", Width::k16},
     &NodeCounts::alloc},
    {{"slurm_partition_nodes_blocked", "Nodes blocked", Width::k16},
     &NodeCounts::blocked},
    {{"slurm_partition_nodes_cg", "Nodes in completing state", Width::k16},
     &NodeCounts::cg},
    {{"slurm_partition_nodes_cloud", "Cloud nodes", Width::k16},
     &NodeCounts::cloud},
    {{"slurm_partition_nodes_cpus_efctv",
      "Number of effective CPUs on all nodes, excludes CoreSpec", Width::k16},
     &NodeCounts::cpus_efctv},
    {{"slurm_partition_nodes_cpus_idle", "Number of idle CPUs on all nodes",
      Width::k16},
     &NodeCounts::cpus_idle},
    {{"slurm_partition_nodes_cpus_alloc", "Number of allocated cpus",
      Width::k16},
     &NodeCounts::cpus_alloc},
    {{"slurm_partition_nodes_down", "Nodes in Down state", Width::k16},
     &NodeCounts::down},
    {{"slurm_partition_nodes_drain", "Nodes in Drain state", Width::k16},
     &NodeCounts::drain},
    {{"slurm_partition_nodes_drained", "Nodes in Drained state", Width::k16},
     &NodeCounts::drained},
    {{"slurm_partition_nodes_draining",
      "Number of nodes in draining condition (Drain state with active jobs)",
      Width::k16},
     &NodeCounts::draining},
    {{"slurm_partition_nodes_dyn_future", "Dynamic nodes in Future state",
      Width::k16},
     &NodeCounts::dyn_future},
    {{"slurm_partition_nodes_dyn_normal", "Dynamic nodes", Width::k16},
     &NodeCounts::dyn_normal},
    {{"slurm_partition_nodes_external", "External nodes", Width::k16},
     &NodeCounts::external},
    {{"slurm_partition_nodes_fail", "Nodes in Fail state", Width::k16},
     &NodeCounts::fail},
    {{"slurm_partition_nodes_future", "Nodes in Future state", Width::k16},
     &NodeCounts::future},
    {{"slurm_partition_nodes_idle", "Nodes in Idle state", Width::k16},
     &NodeCounts::idle},
    {{"slurm_partition_nodes_invalid_reg",
      "Number of nodes with Invalid Registration flag", Width::k16},
     &NodeCounts::invalid_reg},
    {{"slurm_partition_nodes_maint", "Nodes in maintenance state", Width::k16},
     &NodeCounts::maint},
    {{"slurm_partition_nodes_mem_alloc",
      "Amount of allocated memory of all nodes", Width::k64},
     &NodeCounts::mem_alloc_mb},
    {{"slurm_partition_nodes_mem_avail",
      "Amount of available memory of all nodes", Width::k64},
     &NodeCounts::mem_avail_mb},
    {{"slurm_partition_nodes_mem_free", "Amount of free memory in all nodes",
      Width::k64},
     &NodeCounts::mem_free_mb},
    {{"slurm_partition_nodes_mem_tot", "Total amount of memory of all nodes",
      Width::k64},
     &NodeCounts::mem_total_mb},
    {{"slurm_partition_nodes_mixed", "Nodes in Mixed state", Width::k16},
     &NodeCounts::mixed},
    {{"slurm_partition_nodes_no_resp", "Nodes in Not Responding state",
      Width::k16},
     &NodeCounts::no_resp},
    {{"slurm_partition_nodes_planned", "Nodes in Planned state", Width::k16},
     &NodeCounts::planned},
    {{"slurm_partition_nodes_power_down", "Nodes marked to Power Down",
      Width::k16},
     &NodeCounts::power_down},
    {{"slurm_partition_nodes_power_up", "Nodes marked to Power Up", Width::k16},
     &NodeCounts::power_up},
    {{"slurm_partition_nodes_powered_down", "Powered down nodes", Width::k16},
     &NodeCounts::powered_down},
    {{"slurm_partition_nodes_powering_down", "Powering down nodes", Width::k16},
     &NodeCounts::powering_down},
    {{"slurm_partition_nodes_powering_up", "Powering up nodes", Width::k16},
     &NodeCounts::powering_up},
    {{"slurm_partition_nodes_reboot_issued", "Nodes which initiated reboot",
      Width::k16},
     &NodeCounts::reboot_issued},
    {{"slurm_partition_nodes_reboot_requested",
      "Nodes with Reboot Requested flag", Width::k16},
     &NodeCounts::reboot_requested},
    {{"slurm_partition_nodes_resv", "Nodes with Reserved flag", Width::k16},
     &NodeCounts::resv},
    {{"slurm_partition_nodes_unknown", "Nodes in Unknown state", Width::k16},
     &NodeCounts::unknown},
    {{"slurm_partition_gpus", "Partition total gpus", Width::k64},
     &NodeCounts::gpus},
};

using SizeRow = native::MemberRow<Partition, int64_t>;

// Copied from the partition record, computed when its node bitmap was last
// built (Σ node_ptr->cpus and the node count).
const SizeRow kSizeRows[] = {
    {{"slurm_partition_cpus", "Partition total cpus"}, &Partition::total_cpus},
    {{"slurm_partition_nodes", "Partition total nodes", Width::k16},
     &Partition::total_nodes},
};

struct PartitionTotals {
  NodeCounts nodes;
  JobTotals jobs;
};

constinit const native::Table<CountRow> kCountTable(kCount, "");
constinit const native::Table<JobRow> kJobTable(kJobRows, "partition");
constinit const native::Table<NodeRow> kNodeTable(kNodeRows, "partition");
constinit const native::Table<SizeRow> kSizeTable(kSizeRows, "partition");

}  // namespace

// In the order AddNativePartitionFamilies adds them.
std::span<const FamilyDef* const> NativePartitionFamilies() {
  return native::FamiliesOf<kCountTable, kJobTable, kNodeTable, kSizeTable>();
}

void AddNativePartitionFamilies(MetricSet& set, const NodeSnapshot& snap,
                                const JobSnapshot* jobs,
                                const RenderOptions& opts) {
  const bool nv = opts.native_values;

  kCountTable.Emitters(set, nv)[0].Add(snap.partitions.size());

  std::vector<PartitionTotals> totals(snap.partitions.size());
  std::vector<NodeView> listed;
  listed.reserve(snap.nodes.size());
  for (const Node& n : snap.nodes) listed.push_back(native::ViewNode(n, nv));
  std::vector<NodeView> unlisted;
  unlisted.reserve(snap.unlisted_nodes.size());
  for (const Node& n : snap.unlisted_nodes)
    unlisted.push_back(native::ViewNode(n, nv));

  std::unordered_map<std::string_view, size_t> by_name;
  for (size_t p = 0; p < snap.partitions.size(); ++p) {
    const Partition& part = snap.partitions[p];
    by_name.emplace(part.name, p);
    for (uint32_t i : part.node_indices) {
      if (i < listed.size()) totals[p].nodes.Add(listed[i], /*rewritten=*/true);
    }
    for (uint32_t i : part.unlisted_node_indices) {
      if (i < unlisted.size())
        totals[p].nodes.Add(unlisted[i], /*rewritten=*/true);
    }
  }
  if (jobs) {
    for (const Job& j : jobs->jobs) {
      const auto it = by_name.find(j.statistics_partition);
      if (it != by_name.end()) totals[it->second].jobs.Add(j, nv);
    }
    for (PartitionTotals& t : totals)
      t.jobs.Finish(nv && jobs->native_nodes_alloc_per_record);
  }

  std::vector<native::Emitter> job_emit;
  if (jobs) job_emit = kJobTable.Emitters(set, nv);
  std::vector<native::Emitter> node_emit = kNodeTable.Emitters(set, nv);
  std::vector<native::Emitter> size_emit = kSizeTable.Emitters(set, nv);
  for (size_t p = 0; p < snap.partitions.size(); ++p) {
    const Partition& part = snap.partitions[p];
    for (size_t i = 0; i < job_emit.size(); ++i)
      job_emit[i].Add(part.name, totals[p].jobs.*kJobRows[i].value);
    for (size_t i = 0; i < node_emit.size(); ++i)
      node_emit[i].Add(part.name, totals[p].nodes.*kNodeRows[i].value);
    for (size_t i = 0; i < size_emit.size(); ++i) {
      const int64_t v = part.*kSizeRows[i].value;
      size_emit[i].Add(part.name, v > 0 ? static_cast<uint64_t>(v) : 0);
    }
  }
}

}  // namespace sm
