// SPDX-License-Identifier: GPL-2.0-or-later
#include "serving/endpoints.h"

#include <algorithm>
#include <utility>

#include "serving/family_registry.h"

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
// on /metrics Soperator's (docs/metrics-native.md). The registry's `yields`
// columns say so; this is what they make Soperator's nodes leave out.
std::span<const std::string_view> SharedNodeFamilyNames() {
  return YieldedNames(*FindFamilyGroup("soperator_nodes"), Endpoint::kNodes);
}

namespace {

bool Present(StateParts needs, const ClusterState& s,
             const QueueWaitHistory* queue_wait) {
  using namespace state_part;
  const std::pair<StateParts, bool> have[] = {
      {kNodes, s.nodes != nullptr},
      {kJobs, s.jobs != nullptr},
      {kDiag, s.diag != nullptr},
      {kShares, s.shares != nullptr},
      {kQos, s.qos != nullptr},
      {kLicenses, s.licenses != nullptr},
      {kReservations, s.reservations != nullptr},
      {kQueueWait, queue_wait != nullptr},
  };
  for (const auto& [part, there] : have)
    if ((needs & part) && !there) return false;
  return true;
}

}  // namespace

// Every group of the registry (family_registry.cc) this endpoint serves
// and whose parts of the state are there, in the registry's order.
void AddEndpointFamilies(MetricSet& set, Endpoint e, const ClusterState& state,
                         const NodeHistory& history, const RenderOptions& opts,
                         const QueueWaitHistory* queue_wait,
                         const BeforeGroup& before_group) {
  const auto groups = FamilyGroups();
  for (size_t i = 0; i < groups.size(); ++i) {
    const FamilyGroup& g = groups[i];
    if (!Contains(g.endpoints, e) || !Present(g.needs, state, queue_wait)) continue;
    const auto skip = YieldedNames(g, e);
    if (before_group && before_group(i, g, skip)) continue;
    g.add(set, GroupInputs({state, history, opts, queue_wait, skip}));
  }
}

}  // namespace sm
