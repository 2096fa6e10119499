// SPDX-License-Identifier: GPL-2.0-or-later
// The parts of the controller's state the collector copies on each tick,
// one typed entry per part. Adding a part is a Source method, a
// ClusterState field, one entry in kSubCollectors and, for the families
// that read it, a state_part bit (family_registry.h); the collector
// schedules, isolates, counts and applies every entry the same way.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "serving/endpoints.h"
#include "families/accounting/fairshare.h"
#include "serving/family_registry.h"
#include "model/finished_jobs.h"
#include "families/accounting/licenses.h"
#include "families/soperator/node_history.h"
#include "families/accounting/qos.h"
#include "families/ours/queue_wait.h"
#include "families/accounting/reservations.h"
#include "source.h"

namespace sm {

// Everything a render reads, guarded by the collector's apply lock.
struct CollectedState {
  // `finished`: JobSource=accounting's window (docs/configuration.md,
  // "Finished jobs"); none with JobSource=controller.
  explicit CollectedState(double start,
                          std::optional<FinishedJobLimits> finished = {})
      : history(start),
        finished_jobs(finished ? std::make_unique<FinishedJobs>(*finished)
                               : nullptr) {}
  ClusterState cluster;
  NodeHistory history;
  QueueWaitHistory queue_wait;
  std::unique_ptr<FinishedJobs> finished_jobs;
  int64_t unix_now = 0;  // unix seconds of the apply under way
};

// A successful copy, ready to be stored into the state at monotonic time
// `now` (only when it is not stale: the collector decides).
using Applier = std::function<void(CollectedState&, double now)>;

struct SubCollectorDef {
  std::string_view name;  // the `collector` label of self-monitoring
  // Calls the Source; an empty Applier, and `error` set, on failure.
  Applier (*collect)(Source&, LockTiming&, std::string& error);
  // The only families this part feeds, when that is all it is for (the
  // registry's groups that need it, family_registry.h): with every one of
  // them in DisabledFamilies the part is never collected (no lock taken).
  // Empty: always collected.
  std::span<const FamilyDef* const> (*families)() = nullptr;
};

namespace sub_collectors {

// What a part does after it is stored, besides being rendered.
inline void ObserveNodes(CollectedState& s, const NodeSnapshot& n, double now) {
  s.history.Observe(n, now);
}
inline void ObserveJobs(CollectedState& s, const JobSnapshot& j, double) {
  s.queue_wait.Observe(j);
  if (s.finished_jobs)
    s.cluster.finished_jobs = s.finished_jobs->Observe(j, s.unix_now);
}

// Source::*Collect's snapshot into ClusterState::*Field, then Then().
template <auto Collect, auto Field, auto Then = nullptr>
Applier Into(Source& source, LockTiming& timing, std::string& error) {
  auto snapshot = (source.*Collect)(timing, error);
  if (!snapshot) return {};
  return [snapshot = std::move(snapshot)](CollectedState& s, double now) {
    // A type test, not `Then != nullptr`: gcc's -fsanitize=undefined
    // (-fno-delete-null-pointer-checks) makes a function's address
    // non-constant, and that comparison does not compile there.
    if constexpr (!std::is_null_pointer_v<decltype(Then)>)
      Then(s, *snapshot, now);
    s.cluster.*Field = snapshot;
  };
}

}  // namespace sub_collectors

inline constexpr SubCollectorDef kSubCollectors[] = {
    {"nodes", sub_collectors::Into<&Source::CollectNodes, &ClusterState::nodes,
                                   &sub_collectors::ObserveNodes>},
    {"jobs", sub_collectors::Into<&Source::CollectJobs, &ClusterState::jobs,
                                  &sub_collectors::ObserveJobs>},
    {"diag", sub_collectors::Into<&Source::CollectDiag, &ClusterState::diag>},
    {"associations",
     sub_collectors::Into<&Source::CollectShares, &ClusterState::shares>,
     &FamiliesOfPart<state_part::kShares>},
    {"qos", sub_collectors::Into<&Source::CollectQos, &ClusterState::qos>,
     &FamiliesOfPart<state_part::kQos>},
    {"licenses",
     sub_collectors::Into<&Source::CollectLicenses, &ClusterState::licenses>,
     &FamiliesOfPart<state_part::kLicenses>},
    {"reservations",
     sub_collectors::Into<&Source::CollectReservations,
                          &ClusterState::reservations>,
     &FamiliesOfPart<state_part::kReservations>},
    {"accounting", sub_collectors::Into<&Source::CollectAccountingStatus,
                                        &ClusterState::accounting>},
};
inline constexpr int kSubCollectorCount = std::size(kSubCollectors);

}  // namespace sm
