// SPDX-License-Identifier: GPL-2.0-or-later
#include "endpoints.h"

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

void AddEndpointFamilies(MetricSet& set, Endpoint e, const ClusterState& state,
                         const NodeHistory& history, const RenderOptions& opts) {
  const bool all = e == Endpoint::kSoperator || e == Endpoint::kEverything;
  if ((all || e == Endpoint::kNodes) && state.nodes) {
    AddSoperatorNodeFamilies(set, *state.nodes);
    history.AddFamilies(set);
  }
  if ((all || e == Endpoint::kJobs) && state.jobs)
    AddSoperatorJobFamilies(set, *state.jobs, opts.now);
  if ((all || e == Endpoint::kScheduler) && state.diag)
    AddSoperatorControllerFamilies(set, *state.diag);
}

}  // namespace sm
