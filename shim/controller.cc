// SPDX-License-Identifier: GPL-2.0-or-later
// The replay's controller state: Slurm's logging and configuration, and
// the swap of every record list (build_*.cc) and the statistics
// (statistics_rpc.cc) under slurmctld's write locks.
#include "controller.h"

#include <algorithm>

#include "builders.h"
#include "slurmctld_standins.h"
#include "statistics_rpc.h"
#include "vocabulary.h"

namespace shim {
namespace {

// Frees every record; the caller holds all write locks.
void ClearLocked() {
  FreeJobs();
  FreePartitions();
  FreeReservations();
  FreeLicenses();
  FreeAssociations();
  FreeQos();
  BuildNodeGroups(ClusterIn{});
  FreeNodes();
  PublishStatistics(nullptr);
}

}  // namespace

void SetupSlurm(const std::string& cluster_name, int verbosity) {
  log_options_t opts = LOG_OPTS_STDERR_ONLY;
  static const log_level_t kLevels[] = {LOG_LEVEL_QUIET, LOG_LEVEL_ERROR,
                                        LOG_LEVEL_INFO, LOG_LEVEL_DEBUG};
  opts.stderr_level = kLevels[std::clamp(verbosity, 0, 3)];
  log_init(const_cast<char*>("soperator-metrics-shim"), opts, SYSLOG_FACILITY_DAEMON, nullptr);
  slurm_conf.cluster_name = xstrdup(cluster_name.empty() ? "shim" : cluster_name.c_str());
#if !SM_SLURM_AT_LEAST(23, 2)
  // 22.05 hides powered-down cloud nodes unless PrivateData=cloud; a dump
  // that shows them came from a controller that showed them.
  slurm_conf.private_data |= PRIVATE_CLOUD_NODES;
#endif
  // Warm the reverse name tables outside any lock.
  (void)ReasonIds();
  (void)RpcIds();
}

int NodeRecordCount() { return node_record_count; }

void ClearClusterState() {
  WriteLockAll lock;
  ClearLocked();
}

void LoadClusterState(const ClusterIn& in) {
  // Words and RPC statistics are translated before the locks are taken; a
  // value found unrepresentable later leaves an empty controller (the CLI
  // stops on the error anyway).
  const std::vector<NodeIn> no_nodes;
  const std::vector<JobIn> no_jobs;
  const std::vector<NodeIn>& nodes = in.nodes ? *in.nodes : no_nodes;
  const std::vector<JobIn>& jobs = in.jobs ? *in.jobs : no_jobs;
  std::vector<uint32_t> node_states(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) node_states[i] = NodeStateOf(nodes[i]);
  std::vector<uint32_t> job_states(jobs.size()), reasons(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    job_states[i] = JobStateOf(jobs[i]);
    reasons[i] = ReasonOf(jobs[i]);
  }
  std::unique_ptr<DiagIn> diag = in.diag ? PrepareStatistics(*in.diag) : nullptr;

  WriteLockAll lock;
  ClearLocked();
  try {
    const NodeTable table = BuildNodes(nodes, node_states);
    const PartitionTable partitions = BuildPartitions(in, nodes);
    BuildReservations(nodes, table, in.reservations ? &*in.reservations : nullptr);
    if (in.licenses) BuildLicenses(*in.licenses);
    BuildNodeGroups(in);
    if (in.qos || in.shares || !in.tres_names.empty())
      BuildQos(in.qos ? *in.qos : std::vector<QosIn>{}, in.tres_names);
    if (in.shares) BuildAssociations(*in.shares);
    std::vector<JobAlloc> allocs = BuildJobs(jobs, job_states, reasons, table, partitions);
    BuildAllocations(allocs, nodes, node_states, table);
  } catch (...) {
    ClearLocked();
    throw;
  }
  PublishStatistics(std::move(diag));
}

}  // namespace shim
