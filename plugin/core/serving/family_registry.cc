// SPDX-License-Identifier: GPL-2.0-or-later
#include "serving/family_registry.h"

#include <algorithm>
#include <vector>

#include "families/accounting/fairshare.h"
#include "base/immortal.h"
#include "config/exporter_config.h"
#include "families/ours/job_gpus.h"
#include "families/ours/node_power.h"
#include "families/accounting/licenses.h"
#include "families/native/native_jobs.h"
#include "families/native/native_nodes.h"
#include "families/native/native_partitions.h"
#include "families/native/native_scheduler.h"
#include "families/native/native_users_accounts.h"
#include "config/nearest_name.h"
#include "families/accounting/node_gres.h"
#include "families/accounting/pending_jobs.h"
#include "families/accounting/qos.h"
#include "families/accounting/reservations.h"
#include "families/soperator/soperator_controller.h"
#include "families/soperator/soperator_jobs.h"
#include "families/soperator/self_monitoring.h"
#include "families/soperator/soperator_nodes.h"

namespace sm {
namespace {

using E = Endpoint;
namespace part = state_part;

// Soperator's families and the accounting ones are on /metrics (both
// carriers) and on the one metrics/openmetrics path each belongs with;
// Slurm's own families are on their path and on the metrics/soperator
// carrier's listener /metrics (docs/metrics.md says which path serves
// which).
constexpr EndpointSet Ours(Endpoint path) {
  return Endpoints({E::kSoperator, E::kEverything, path});
}
constexpr EndpointSet Slurms(Endpoint path) {
  return Endpoints({E::kEverything, path});
}

// Declarative: one row per group, in the order a body adds them (the
// order of the code this table replaced, so bodies stay byte-identical).
const FamilyGroup kGroups[] = {
    {.name = "soperator_nodes",
     .endpoints = Ours(E::kNodes),
     .yields = Endpoints({E::kNodes}),
     .needs = part::kNodes,
     .families = &SoperatorNodeFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddSoperatorNodeFamilies(set, in.nodes(), in.skip(), in.node_info_nodeset());
     },
     .follows = part::kNodes},
    {.name = "node_history",
     .endpoints = Ours(E::kNodes),
     .needs = part::kNodes,
     .also_reads = part::kHistory,
     .families = &NodeHistory::Families,
     .add = [](MetricSet& set, const GroupInputs& in) {
       in.history().AddFamilies(set);
     }},
    {.name = "soperator_jobs",
     .endpoints = Ours(E::kJobs),
     .needs = part::kJobs,
     .also_reads = part::kFinishedJobs | part::kNodeGroups,
     .families = &SoperatorJobFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddSoperatorJobStateFamilies(set, in.jobs(), in.finished_jobs(), in.node_groups());
     },
     .follows = part::kJobs | part::kJobTimes | part::kFinishedJobs | part::kNodeGroups},
    {.name = "soperator_job_durations",
     .endpoints = Ours(E::kJobs),
     .needs = part::kJobs,
     .also_reads = part::kFinishedJobs | part::kClock,
     .families = &SoperatorJobDurationFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddSoperatorJobDurations(set, in.jobs(), in.now(), in.finished_jobs());
     }},
    {.name = "soperator_controller",
     .endpoints = Ours(E::kScheduler),
     .needs = part::kDiag,
     .families = &SoperatorControllerFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddSoperatorControllerFamilies(set, in.diag());
     }},
    {.name = "native_nodes",
     .endpoints = Slurms(E::kNodes),
     .yields = Endpoints({E::kEverything}),
     .needs = part::kNodes,
     .families = &NativeNodeFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddNativeNodeFamilies(set, in.nodes(), in.keyed_options(), in.skip());
     },
     .follows = part::kNodes},
    {.name = "native_jobs",
     .endpoints = Slurms(E::kJobs),
     .needs = part::kJobs,
     .families = &NativeJobFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddNativeJobFamilies(set, in.jobs(), in.keyed_options());
     },
     .follows = part::kJobs},
    {.name = "native_partitions",
     .endpoints = Slurms(E::kPartitions),
     .needs = part::kNodes,
     .also_reads = part::kJobs,
     .families = &NativePartitionFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddNativePartitionFamilies(set, in.nodes(), in.jobs_if_any(),
                                  in.keyed_options());
     },
     .follows = part::kNodes | part::kJobs},
    {.name = "native_users_accounts",
     .endpoints = Slurms(E::kJobsUsersAccts),
     .needs = part::kJobs,
     .families = &NativeUserAccountFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddNativeUserAccountFamilies(set, in.jobs(), in.keyed_options());
     },
     .follows = part::kJobs},
    {.name = "native_scheduler",
     .endpoints = Slurms(E::kScheduler),
     .needs = part::kDiag,
     .families = &NativeSchedulerFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddNativeSchedulerFamilies(set, in.diag(), in.keyed_options());
     }},
    // The accounting side: associations and QoS with users and accounts,
    // licenses and reservations with the scheduler, per-node GRES and
    // reservation node states with the nodes, queue waits with the jobs.
    {.name = "fairshare",
     .endpoints = Ours(E::kJobsUsersAccts),
     .needs = part::kShares,
     .families = &FairshareFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddFairshareFamilies(set, in.shares(), {});
     }},
    {.name = "qos",
     .endpoints = Ours(E::kJobsUsersAccts),
     .needs = part::kQos,
     .families = &QosFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddQosFamilies(set, in.qos());
     }},
    {.name = "licenses",
     .endpoints = Ours(E::kScheduler),
     .needs = part::kLicenses,
     .families = &LicenseFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddLicenseFamilies(set, in.licenses());
     }},
    {.name = "reservations",
     .endpoints = Ours(E::kScheduler),
     .needs = part::kReservations,
     .families = &ReservationFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddReservationFamilies(set, in.reservations());
     }},
    {.name = "node_gres",
     .endpoints = Ours(E::kNodes),
     .needs = part::kNodes,
     .families = &NodeGresFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddNodeGresFamilies(set, in.nodes());
     },
     .follows = part::kNodes},
    {.name = "reservation_nodes",
     .endpoints = Ours(E::kNodes),
     .needs = part::kNodes,
     .families = &ReservationNodeFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddReservationNodeFamilies(set, in.nodes());
     },
     .follows = part::kNodes},
    {.name = "pending_jobs",
     .endpoints = Ours(E::kJobs),
     .needs = part::kJobs,
     .families = &PendingJobFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddPendingJobFamilies(set, in.jobs(), {in.pending_user_label()});
     },
     .follows = part::kJobs},
    {.name = "job_gpus",
     .endpoints = Ours(E::kJobs),
     .needs = part::kJobs,
     .families = &JobGpuFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddJobGpuFamilies(set, in.jobs());
     },
     .follows = part::kJobs},
    {.name = "queue_wait",
     .endpoints = Ours(E::kJobs),
     .needs = part::kQueueWait,
     .families = &QueueWaitHistory::Families,
     .add = [](MetricSet& set, const GroupInputs& in) {
       in.queue_wait().AddFamilies(set);
     }},
    // Node power and energy (ours), with Soperator's node families. Built
    // every render: a group that may be taken lists no counter
    // (family_registry_test.cc, GroupsThatMayBeTakenListNoCounter).
    {.name = "node_power",
     .endpoints = Ours(E::kNodes),
     .needs = part::kNodes,
     .families = &NodePowerFamilies,
     .add = [](MetricSet& set, const GroupInputs& in) {
       AddNodePowerFamilies(set, in.nodes());
     }},
};
constexpr size_t kGroupCount = std::size(kGroups);

const FamilySwitch kSwitches[] = {
    {.option = "FairshareUserMetrics",
     .on = &Config::fairshare_user_metrics,
     .families = &FairshareUserFamilies},
    {.option = "NodeGresMetrics",
     .on = &Config::node_gres_metrics,
     .families = &NodeGresFamilies},
};

bool HasName(const FamilyGroup& g, std::string_view name) {
  const auto families = g.families();
  return std::any_of(families.begin(), families.end(),
                     [&](const FamilyDef* f) { return f->name == name; });
}

// The names of `g` another group served on `e` also has.
std::vector<std::string_view> Shared(const FamilyGroup& g, Endpoint e) {
  std::vector<std::string_view> out;
  for (const FamilyDef* f : g.families()) {
    for (const FamilyGroup& other : kGroups) {
      if (&other != &g && Contains(other.endpoints, e) && HasName(other, f->name)) {
        out.push_back(f->name);
        break;
      }
    }
  }
  return out;
}

using Yielded = std::vector<std::vector<std::string_view>>;  // [group][endpoint]

const Yielded& AllYielded() {
  static const auto& kYielded = Immortal([] {
    Yielded out(kGroupCount * kEndpointCount);
    for (size_t g = 0; g < kGroupCount; ++g) {
      for (int e = 0; e < kEndpointCount; ++e) {
        if (Contains(kGroups[g].yields, static_cast<Endpoint>(e)))
          out[g * kEndpointCount + e] = Shared(kGroups[g], static_cast<Endpoint>(e));
      }
    }
    return out;
  }());
  return kYielded;
}

const std::vector<std::string_view>& KnownNames() {
  static const auto& kNames = Immortal([] {
    std::vector<std::string_view> names;
    for (const FamilyGroup& g : kGroups)
      for (const FamilyDef* f : g.families()) names.push_back(f->name);
    for (const FamilyDef* f : FamiliesServedBeside()) names.push_back(f->name);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  }());
  return kNames;
}

}  // namespace

std::span<const FamilyGroup> FamilyGroups() { return kGroups; }

std::span<const FamilyDef* const> FamiliesServedBeside() {
  static const auto& kBeside = Immortal([] {
    std::vector<const FamilyDef*> out;
    for (const auto list : {SelfMonitoringFamilies(), AccountingStatusFamilies()})
      out.insert(out.end(), list.begin(), list.end());
    return out;
  }());
  return kBeside;
}

std::span<const FamilySwitch> FamilySwitches() { return kSwitches; }

const FamilyGroup* FindFamilyGroup(std::string_view name) {
  for (const FamilyGroup& g : kGroups)
    if (g.name == name) return &g;
  return nullptr;
}

std::span<const std::string_view> YieldedNames(const FamilyGroup& group,
                                               Endpoint e) {
  const size_t g = &group - kGroups;
  return AllYielded()[g * kEndpointCount + static_cast<int>(e)];
}

std::span<const FamilyDef* const> FamiliesOfPart(StateParts part) {
  static const auto& kByPart = Immortal([] {
    std::vector<std::vector<const FamilyDef*>> by_part(16);
    for (const FamilyGroup& g : kGroups) {
      for (int bit = 0; bit < 16; ++bit) {
        if (!(g.needs & (1 << bit))) continue;
        for (const FamilyDef* f : g.families()) by_part[bit].push_back(f);
      }
    }
    return by_part;
  }());
  for (int bit = 0; bit < 16; ++bit)
    if (part == (1 << bit)) return kByPart[bit];
  return {};
}

bool IsKnownFamily(std::string_view name) {
  return std::binary_search(KnownNames().begin(), KnownNames().end(), name);
}

std::optional<std::string_view> NearestFamily(std::string_view name) {
  return NearestName(name, KnownNames());
}

}  // namespace sm
