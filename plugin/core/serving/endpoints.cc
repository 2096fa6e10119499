// SPDX-License-Identifier: GPL-2.0-or-later
#include "serving/endpoints.h"

#include <algorithm>
#include <optional>
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

// Everything a group's families follow from on endpoint `e` (its skipped
// names are the endpoint's), when the registry says what that is
// (FamilyGroup::follows) and each such part has a content fingerprint.
// None with JobSource=accounting for a group that serves finished jobs:
// their window follows the clock.
std::optional<Fingerprint> KeyOf(const FamilyGroup& g, size_t index, Endpoint e,
                                 const ClusterState& state,
                                 const RenderOptions& opts, const Fingerprint& filters) {
  using namespace state_part;
  if (g.follows == 0 ||
      (g.follows & ~(kNodes | kJobs | kJobTimes | kFinishedJobs | kNodeGroups)) != 0)
    return std::nullopt;
  if ((g.follows & kFinishedJobs) && state.finished_jobs) return std::nullopt;
  FingerprintHasher h;
  h.Word(index);
  h.Word(static_cast<uint64_t>(e));
  const auto part = [&h](const auto& snapshot, auto content) {
    // An absent part (native_partitions without jobs) is a content too.
    h.Word(snapshot != nullptr);
    if (!snapshot) return;
    const Fingerprint c = ((*snapshot).*content)();
    h.Word(c.a);
    h.Word(c.b);
  };
  if (g.follows & kNodes) part(state.nodes, &NodeSnapshot::Content);
  if (g.follows & kNodeGroups) part(state.nodes, &NodeSnapshot::GroupsContent);
  if (g.follows & kJobs)
    part(state.jobs, g.follows & kJobTimes ? &JobSnapshot::Content
                                           : &JobSnapshot::ContentBesidesTimes);
  h.Word(filters.a);
  h.Word(filters.b);
  h.Word(opts.native_values | opts.pending_user_label << 1 | opts.node_info_nodeset << 2);
  return h.Finish();
}

bool EveryBodyHas(const GroupReuse& reuse, const GroupKey& key) {
  if (reuse.earlier.empty()) return false;
  for (std::span<const GroupKey> keys : reuse.earlier)
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) return false;
  return true;
}

}  // namespace

// Every group of the registry (family_registry.cc) this endpoint serves
// and whose parts of the state are there, in the registry's order.
void AddEndpointFamilies(MetricSet& set, Endpoint e, const ClusterState& state,
                         const NodeHistory& history, const RenderOptions& opts,
                         const QueueWaitHistory* queue_wait, GroupReuse* reuse) {
  const auto groups = FamilyGroups();
  // The same for every group of this body: the disabled and hidden ones.
  const Fingerprint filters = reuse ? set.Filters() : Fingerprint{};
  for (size_t i = 0; i < groups.size(); ++i) {
    const FamilyGroup& g = groups[i];
    if (!Contains(g.endpoints, e) || !Present(g.needs, state, queue_wait)) continue;
    const auto skip = YieldedNames(g, e);
    const std::optional<Fingerprint> inputs =
        reuse ? KeyOf(g, i, e, state, opts, filters) : std::nullopt;
    if (inputs) {
      const GroupKey key{static_cast<uint32_t>(i), *inputs};
      reuse->keys.push_back(key);
      if (EveryBodyHas(*reuse, key)) {
        for (const FamilyDef* f : g.families())
          if (std::find(skip.begin(), skip.end(), f->name) == skip.end()) set.Take(*f);
        ++reuse->taken;
        continue;
      }
    }
    g.add(set, GroupInputs({state, history, opts, queue_wait, skip}));
  }
}

}  // namespace sm
