// SPDX-License-Identifier: GPL-2.0-or-later
#include "serving/family_registry.h"

#include <algorithm>
#include <vector>

#include "families/accounting/fairshare.h"
#include "base/immortal.h"
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
    {"soperator_nodes", Ours(E::kNodes), Endpoints({E::kNodes}), part::kNodes,
     &SoperatorNodeFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddSoperatorNodeFamilies(set, *in.state.nodes, in.skip);
     },
     part::kNodes},
    {"node_history", Ours(E::kNodes), 0, part::kNodes, &NodeHistory::Families,
     [](MetricSet& set, const FamilyInputs& in) { in.history.AddFamilies(set); }},
    {"soperator_jobs", Ours(E::kJobs), 0, part::kJobs, &SoperatorJobFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddSoperatorJobStateFamilies(set, *in.state.jobs,
                                    in.state.finished_jobs.get());
     },
     part::kJobs | part::kJobTimes | part::kFinishedJobs},
    {"soperator_job_durations", Ours(E::kJobs), 0, part::kJobs,
     &SoperatorJobDurationFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddSoperatorJobDurations(set, *in.state.jobs, in.opts.now,
                                in.state.finished_jobs.get());
     }},
    {"soperator_controller", Ours(E::kScheduler), 0, part::kDiag,
     &SoperatorControllerFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddSoperatorControllerFamilies(set, *in.state.diag);
     }},
    {"native_nodes", Slurms(E::kNodes), Endpoints({E::kEverything}),
     part::kNodes, &NativeNodeFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddNativeNodeFamilies(set, *in.state.nodes, in.opts, in.skip);
     },
     part::kNodes},
    {"native_jobs", Slurms(E::kJobs), 0, part::kJobs, &NativeJobFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddNativeJobFamilies(set, *in.state.jobs, in.opts);
     },
     part::kJobs},
    {"native_partitions", Slurms(E::kPartitions), 0, part::kNodes,
     &NativePartitionFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddNativePartitionFamilies(set, *in.state.nodes, in.state.jobs.get(),
                                  in.opts);
     },
     part::kNodes | part::kJobs},
    {"native_users_accounts", Slurms(E::kJobsUsersAccts), 0, part::kJobs,
     &NativeUserAccountFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddNativeUserAccountFamilies(set, *in.state.jobs, in.opts);
     },
     part::kJobs},
    {"native_scheduler", Slurms(E::kScheduler), 0, part::kDiag,
     &NativeSchedulerFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddNativeSchedulerFamilies(set, *in.state.diag, in.opts);
     }},
    // The accounting side: associations and QoS with users and accounts,
    // licenses and reservations with the scheduler, per-node GRES and
    // reservation node states with the nodes, queue waits with the jobs.
    {"fairshare", Ours(E::kJobsUsersAccts), 0, part::kShares,
     &FairshareFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddFairshareFamilies(set, *in.state.shares, {});
     }},
    {"qos", Ours(E::kJobsUsersAccts), 0, part::kQos, &QosFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddQosFamilies(set, *in.state.qos);
     }},
    {"licenses", Ours(E::kScheduler), 0, part::kLicenses, &LicenseFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddLicenseFamilies(set, *in.state.licenses);
     }},
    {"reservations", Ours(E::kScheduler), 0, part::kReservations,
     &ReservationFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddReservationFamilies(set, *in.state.reservations);
     }},
    {"node_gres", Ours(E::kNodes), 0, part::kNodes, &NodeGresFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddNodeGresFamilies(set, *in.state.nodes);
     },
     part::kNodes},
    {"reservation_nodes", Ours(E::kNodes), 0, part::kNodes,
     &ReservationNodeFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddReservationNodeFamilies(set, *in.state.nodes);
     },
     part::kNodes},
    {"pending_jobs", Ours(E::kJobs), 0, part::kJobs, &PendingJobFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddPendingJobFamilies(set, *in.state.jobs, {in.opts.pending_user_label});
     },
     part::kJobs},
    {"job_gpus", Ours(E::kJobs), 0, part::kJobs, &JobGpuFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddJobGpuFamilies(set, *in.state.jobs);
     },
     part::kJobs},
    {"queue_wait", Ours(E::kJobs), 0, part::kQueueWait,
     &QueueWaitHistory::Families,
     [](MetricSet& set, const FamilyInputs& in) {
       in.queue_wait->AddFamilies(set);
     }},
    // Node power and energy (ours), with Soperator's node families. Built
    // every render: a group that may be taken lists no counter
    // (family_registry_test.cc, GroupsThatMayBeTakenListNoCounter).
    {"node_power", Ours(E::kNodes), 0, part::kNodes, &NodePowerFamilies,
     [](MetricSet& set, const FamilyInputs& in) {
       AddNodePowerFamilies(set, *in.state.nodes);
     }},
};
constexpr size_t kGroupCount = std::size(kGroups);

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
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  }());
  return kNames;
}

}  // namespace

std::span<const FamilyGroup> FamilyGroups() { return kGroups; }

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
