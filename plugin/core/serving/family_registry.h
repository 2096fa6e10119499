// SPDX-License-Identifier: GPL-2.0-or-later
// Every family the metrics paths serve, in one table of groups: which
// families a group has, which endpoints serve it, which parts of the
// controller's state it reads and the function that adds it. The endpoints
// (endpoints.cc), the sub-collectors a DisabledFamilies list can switch off
// (sub_collectors.h), the names a builder leaves to another group, and the
// check of DisabledFamilies (exporter_config.cc) all read this table.
// docs/testing.md, "Adding a family", says what a new family touches.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>

#include "serving/endpoints.h"
#include "exposition/exposition.h"
#include "families/soperator/node_history.h"
#include "families/ours/queue_wait.h"

namespace sm {

// A set of endpoints, one bit per Endpoint.
using EndpointSet = uint8_t;
constexpr EndpointSet Endpoints(std::initializer_list<Endpoint> endpoints) {
  EndpointSet set = 0;
  for (Endpoint e : endpoints) set |= EndpointSet{1} << static_cast<int>(e);
  return set;
}
constexpr bool Contains(EndpointSet set, Endpoint e) {
  return (set >> static_cast<int>(e)) & 1;
}

// The parts of ClusterState (plus the queue-wait history) a group reads:
// it is added only when every one of them is there.
using StateParts = uint16_t;
namespace state_part {
inline constexpr StateParts kNodes = 1 << 0;
inline constexpr StateParts kJobs = 1 << 1;
inline constexpr StateParts kDiag = 1 << 2;
inline constexpr StateParts kShares = 1 << 3;
inline constexpr StateParts kQos = 1 << 4;
inline constexpr StateParts kLicenses = 1 << 5;
inline constexpr StateParts kReservations = 1 << 6;
inline constexpr StateParts kQueueWait = 1 << 7;
// Only in FamilyGroup::follows: JobSource=accounting's finished jobs.
inline constexpr StateParts kFinishedJobs = 1 << 8;
// Only in FamilyGroup::follows, with kJobs: the jobs' start and end times
// too. A group without it follows the rest of each job only: a pending
// job whose estimated start has passed shows the collection's time as its
// start, as squeue does, so those two move every collection
// (JobSnapshot::ContentBesidesTimes).
inline constexpr StateParts kJobTimes = 1 << 9;
}  // namespace state_part

// What a group's add function reads.
struct FamilyInputs {
  const ClusterState& state;
  const NodeHistory& history;
  const RenderOptions& opts;
  const QueueWaitHistory* queue_wait;  // null: no queue-wait family
  // Names of this group that another group serves on this endpoint (see
  // FamilyGroup::yields): not built.
  std::span<const std::string_view> skip;
};

struct FamilyGroup {
  std::string_view name;  // for tests and messages
  EndpointSet endpoints;  // where it is served
  // Endpoints where a family name this group shares with another group
  // served there is left to the other one: a body carries one family of a
  // name (docs/metrics-native.md).
  EndpointSet yields;
  StateParts needs;
  // Every family `add` can add, in the order it adds them.
  std::span<const FamilyDef* const> (*families)();
  void (*add)(MetricSet& set, const FamilyInputs& in);
  // The parts its families follow from, with the render options, when
  // that is all they follow from (not the clock, not a history): a render
  // may take them from the body it replaces while those parts' content is
  // what it was (endpoints.h, GroupReuse). 0: built every render.
  StateParts follows = 0;
};

// The table, in the order the families are added to a body (the order
// matters only between families of one name; see MetricSet::Seal).
std::span<const FamilyGroup> FamilyGroups();

// The group named `name`, or null.
const FamilyGroup* FindFamilyGroup(std::string_view name);

// The names of `group` not built on `e` (FamilyInputs::skip).
std::span<const std::string_view> YieldedNames(const FamilyGroup& group,
                                               Endpoint e);

// Every family of `part`'s groups, for a sub-collector whose part feeds
// nothing else (SubCollectorDef::families).
template <StateParts part>
std::span<const FamilyDef* const> FamiliesOfPart();
std::span<const FamilyDef* const> FamiliesOfPart(StateParts part);

// Whether some group has a family of this name: what DisabledFamilies
// accepts.
bool IsKnownFamily(std::string_view name);

// The known family name closest to `name` (edit distance, case ignored),
// when one is close enough to be a likely misspelling.
std::optional<std::string_view> NearestFamily(std::string_view name);

template <StateParts part>
std::span<const FamilyDef* const> FamiliesOfPart() {
  return FamiliesOfPart(part);
}

}  // namespace sm
