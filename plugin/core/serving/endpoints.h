// SPDX-License-Identifier: GPL-2.0-or-later
// The HTTP paths and the body each serves, built from the family
// registry (family_registry.h), so our HTTP listener, the
// metrics/soperator carrier and the shim agree.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "model/accounting_snapshot.h"
#include "exposition/exposition.h"
#include "model/finished_jobs.h"
#include "families/soperator/node_history.h"
#include "families/ours/queue_wait.h"
#include "model/snapshot.h"

namespace sm {

enum class Endpoint : uint8_t {
  kSoperator,       // listener /metrics: Soperator's 25 families
  kNodes,           // /metrics/nodes
  kJobs,            // /metrics/jobs
  kPartitions,      // /metrics/partitions
  kScheduler,       // /metrics/scheduler
  kJobsUsersAccts,  // /metrics/jobs-users-accts
  kEverything,      // listener /metrics in the metrics/soperator carrier
};
inline constexpr int kEndpointCount = 7;

// "/metrics", "/metrics/nodes", ... (kSoperator and kEverything share one).
std::string_view EndpointPath(Endpoint e);

// The latest successful copy of each part of the controller's state; a
// part that never succeeded is null and its families are absent.
struct ClusterState {
  std::shared_ptr<const NodeSnapshot> nodes;
  std::shared_ptr<const JobSnapshot> jobs;
  std::shared_ptr<const DiagSnapshot> diag;
  // The accounting side (docs/accounting-families.md; docs/metrics.md says
  // which path serves which). Initialised, so the three-part aggregates above still build.
  std::shared_ptr<const ShareSnapshot> shares = nullptr;
  std::shared_ptr<const QosSnapshot> qos = nullptr;
  std::shared_ptr<const LicenseSnapshot> licenses = nullptr;
  std::shared_ptr<const ReservationSnapshot> reservations = nullptr;
  // Rendered with the self-monitoring families, not on these paths.
  std::shared_ptr<const AccountingStatus> accounting = nullptr;
  // JobSource=accounting only (null with controller): which finished jobs
  // the per-job families serve (finished_jobs.h).
  std::shared_ptr<const FinishedJobsView> finished_jobs = nullptr;
};

struct RenderOptions {
  int64_t now = 0;             // unix seconds, for job durations
  bool native_values = false;  // reproduce metrics/openmetrics' numbers
  bool pending_user_label = true;  // QueueUserLabel
  bool node_info_nodeset = false;  // NodeInfoNodesetLabel
};

// Family names both Soperator's and Slurm's native node families define.
std::span<const std::string_view> SharedNodeFamilyNames();

struct FamilyGroup;

// Asked before each group of families this endpoint serves is built, with
// its index in FamilyGroups() and the names it leaves out here: true when
// the caller has given the set the group's families itself (render/
// group_reuse.h in the service takes them from the body a render
// replaces), so they are not built.
using BeforeGroup = std::function<bool(size_t index, const FamilyGroup& group,
                                       std::span<const std::string_view> skipped)>;

// `queue_wait`: the submit-to-start histogram kept across collections
// (none: the family is absent). `before_group`: see BeforeGroup (none:
// every group is built).
void AddEndpointFamilies(MetricSet& set, Endpoint e, const ClusterState& state,
                         const NodeHistory& history, const RenderOptions& opts,
                         const QueueWaitHistory* queue_wait = nullptr,
                         const BeforeGroup& before_group = {});

}  // namespace sm
