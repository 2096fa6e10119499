// SPDX-License-Identifier: GPL-2.0-or-later
#include "endpoints.h"

#include <algorithm>

#include "fairshare.h"
#include "immortal.h"
#include "licenses.h"
#include "native_jobs.h"
#include "native_nodes.h"
#include "native_partitions.h"
#include "native_scheduler.h"
#include "native_users_accounts.h"
#include "node_gres.h"
#include "pending_jobs.h"
#include "qos.h"
#include "reservations.h"
#include "soperator_controller.h"
#include "soperator_jobs.h"
#include "soperator_nodes.h"

namespace sm {

std::string_view EndpointPath(Endpoint e) {
  switch (e) {
    case Endpoint::kSoperator:
    case Endpoint::kEverything: return "/metrics";
    case Endpoint::kNodes: return "/metrics/nodes";
    case Endpoint::kJobs: return "/metrics/jobs";
    case Endpoint::kPartitions: return "/metrics/partitions";
    case Endpoint::kScheduler: return "/metrics/scheduler";
    case Endpoint::kJobsUsersAccts: return "/metrics/jobs-users-accts";
  }
  return "";
}

// Soperator and Slurm's native node families both define a few names
// (slurm_node_cpus_effective, slurm_node_cpus_idle,
// slurm_node_memory_effective_bytes, slurm_node_memory_free_bytes), with
// other HELP text and labels. A body carries one family of a name, as
// client_golang's registry requires: on Slurm's own paths Slurm's family,
// on /metrics Soperator's (docs/metrics-native.md).
std::span<const std::string_view> SharedNodeFamilyNames() {
  static const auto& kShared = Immortal([] {
    std::vector<std::string_view> shared;
    const auto native = NativeNodeFamilyNames();
    for (std::string_view name : SoperatorNodeFamilyNames()) {
      if (std::find(native.begin(), native.end(), name) != native.end())
        shared.push_back(name);
    }
    return shared;
  }());
  return kShared;
}

// Each metrics/openmetrics path serves Slurm's own families, and the three
// that have a Soperator counterpart serve Soperator's too (so one
// MetricsType gives both dashboards their data), except where the names
// are shared (above).
void AddEndpointFamilies(MetricSet& set, Endpoint e, const ClusterState& state,
                         const NodeHistory& history, const RenderOptions& opts,
                         const QueueWaitHistory* queue_wait) {
  const bool everything = e == Endpoint::kEverything;
  const bool soperator = e == Endpoint::kSoperator || everything;
  if ((soperator || e == Endpoint::kNodes) && state.nodes) {
    AddSoperatorNodeFamilies(set, *state.nodes,
                             soperator ? std::span<const std::string_view>()
                                       : SharedNodeFamilyNames());
    history.AddFamilies(set);
  }
  if ((soperator || e == Endpoint::kJobs) && state.jobs)
    AddSoperatorJobFamilies(set, *state.jobs, opts.now);
  if ((soperator || e == Endpoint::kScheduler) && state.diag)
    AddSoperatorControllerFamilies(set, *state.diag);

  if ((everything || e == Endpoint::kNodes) && state.nodes)
    AddNativeNodeFamilies(set, *state.nodes, opts,
                          everything ? SharedNodeFamilyNames()
                                     : std::span<const std::string_view>());
  if ((everything || e == Endpoint::kJobs) && state.jobs)
    AddNativeJobFamilies(set, *state.jobs, opts);
  if ((everything || e == Endpoint::kPartitions) && state.nodes)
    AddNativePartitionFamilies(set, *state.nodes, state.jobs.get(), opts);
  if ((everything || e == Endpoint::kJobsUsersAccts) && state.jobs)
    AddNativeUserAccountFamilies(set, *state.jobs, opts);
  if ((everything || e == Endpoint::kScheduler) && state.diag)
    AddNativeSchedulerFamilies(set, *state.diag, opts);

  // The accounting side (issue 14), on /metrics and on the one
  // metrics/openmetrics group each belongs with: associations and QoS with
  // users and accounts, licenses and reservations with the scheduler, per
  // node GRES and reservation node states with the nodes, queue waits with
  // the jobs.
  if (soperator || e == Endpoint::kJobsUsersAccts) {
    if (state.shares) AddFairshareFamilies(set, *state.shares, {});
    if (state.qos) AddQosFamilies(set, *state.qos);
  }
  if (soperator || e == Endpoint::kScheduler) {
    if (state.licenses) AddLicenseFamilies(set, *state.licenses);
    if (state.reservations) AddReservationFamilies(set, *state.reservations);
  }
  if ((soperator || e == Endpoint::kNodes) && state.nodes) {
    AddNodeGresFamilies(set, *state.nodes);
    AddReservationNodeFamilies(set, *state.nodes);
  }
  if ((soperator || e == Endpoint::kJobs) && state.jobs)
    AddPendingJobFamilies(set, *state.jobs, {opts.pending_user_label});
  if ((soperator || e == Endpoint::kJobs) && queue_wait)
    queue_wait->AddFamilies(set);
}

}  // namespace sm
